package olmresolve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"

	"github.com/operator-framework/operator-registry/pkg/api"
	registrycache "github.com/operator-framework/operator-registry/pkg/cache"
	registryclient "github.com/operator-framework/operator-registry/pkg/client"
	"github.com/operator-framework/operator-registry/pkg/server"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"
)

// served is one catalog served as `opm serve` serves it: operator-registry's cache built
// from the file-based catalog, its registry server on an in-process gRPC connection, and
// the client OLM's catalog operator would hold for the CatalogSource.
type served struct {
	client *registryclient.Client
	stop   func()
}

// serve builds operator-registry's cache of fbc in a temporary folder (what `opm serve`
// does on start; a catalog it refuses is an error carrying opm's reason) and serves it.
func serve(ctx context.Context, fbc fs.FS) (*served, error) {
	dir, err := os.MkdirTemp("", "odlm-render-opm-cache-")
	if err != nil {
		return nil, err
	}
	c, err := registrycache.New(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if err := registrycache.LoadOrRebuild(ctx, c, fbc); err != nil {
		_ = c.Close()
		_ = os.RemoveAll(dir)
		return nil, &RefusedError{Reason: err.Error()}
	}
	lis := bufconn.Listen(1 << 20)
	s := grpc.NewServer()
	api.RegisterRegistryServer(s, server.NewRegistryServer(c))
	done := make(chan error, 1)
	go func() { done <- s.Serve(lis) }()
	conn, err := grpc.NewClient("passthrough:///opm-serve",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		s.Stop()
		_ = c.Close()
		_ = os.RemoveAll(dir)
		return nil, err
	}
	stop := func() {
		_ = conn.Close()
		s.Stop()
		if err := <-done; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			fmt.Fprintf(os.Stderr, "olmresolve: registry server: %v\n", err)
		}
		_ = c.Close()
		_ = os.RemoveAll(dir)
	}
	return &served{client: registryclient.NewClientFromConn(conn), stop: stop}, nil
}

// RefusedError is a catalog `opm serve` refuses to serve: its CatalogSource serves nothing,
// so nothing installs or upgrades from it.
type RefusedError struct {
	// Reason is operator-registry's own message.
	Reason string
}

func (e *RefusedError) Error() string { return "opm serve refuses the catalog: " + e.Reason }

// Refusal builds operator-registry's cache of fbc as `opm serve` does on start, and returns
// why opm would refuse to serve it (a *RefusedError), nil when it serves it.
func Refusal(ctx context.Context, fbc fs.FS) error {
	s, err := serve(ctx, fbc)
	if err != nil {
		return err
	}
	s.stop()
	return nil
}
