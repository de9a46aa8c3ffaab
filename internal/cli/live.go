package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/cluster/live"
	"github.com/odlm-render/odlm-render/internal/installed"
)

// liveFlags are the flags that read a live cluster, read-only: --live, --kubeconfig,
// --context, --live-timeout and --live-deadline, as render and installed define them.
type liveFlags struct {
	on                  bool
	kubeconfig, context string
	timeout, deadline   time.Duration
}

// liveHelp is what --live and --live-deadline say in one command (what it reads).
type liveHelp struct{ live, deadline string }

// bind defines the flags on fs.
func (l *liveFlags) bind(fs *pflag.FlagSet, help liveHelp) {
	fs.BoolVar(&l.on, "live", false, help.live)
	fs.StringVar(&l.kubeconfig, "kubeconfig", "", "kubeconfig for --live (default: $KUBECONFIG, then ~/.kube/config)")
	fs.StringVar(&l.context, "context", "", "kubeconfig context for --live (default: the current context)")
	fs.DurationVar(&l.timeout, "live-timeout", live.DefaultTimeout, "timeout of each --live request")
	fs.DurationVar(&l.deadline, "live-deadline", live.DefaultDeadline, help.deadline)
}

// errKubeconfigWithoutLive refuses --kubeconfig and --context without --live.
var errKubeconfigWithoutLive = usageError{errors.New("--kubeconfig and --context only apply with --live")}

// kubeconfigWithoutLive reports --kubeconfig or --context without --live.
func (l liveFlags) kubeconfigWithoutLive() bool {
	return !l.on && (l.kubeconfig != "" || l.context != "")
}

// reader opens the cluster for the render's sources (nil without --live); refusePlugins
// refuses a kubeconfig that runs exec or auth-provider credential plugins.
func (l liveFlags) reader(refusePlugins bool) func() (cluster.Reader, error) {
	if !l.on {
		return nil
	}
	return func() (cluster.Reader, error) {
		r, err := live.NewReader(live.Options{Kubeconfig: l.kubeconfig, Context: l.context, Timeout: l.timeout,
			Deadline: l.deadline, RefuseCredentialPlugins: refusePlugins})
		if err != nil {
			return nil, fmt.Errorf("--live: %w", err)
		}
		return r, nil
	}
}

// lister opens the cluster for installed.
func (l liveFlags) lister() (*installed.LiveLister, error) {
	lister, err := installed.NewLiveLister(installed.LiveOptions{Kubeconfig: l.kubeconfig, Context: l.context, Timeout: l.timeout, Deadline: l.deadline})
	if err != nil {
		return nil, fmt.Errorf("--live: %w", err)
	}
	return lister, nil
}
