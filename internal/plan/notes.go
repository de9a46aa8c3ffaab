package plan

import (
	"fmt"
	"strings"

	"github.com/odlm-render/odlm-render/internal/cluster"
)

// olmNote is the plan-level note for a cluster that does not serve OLM's kinds (OLM is not
// installed: a fresh cluster), "" when it serves them or cannot tell (a snapshot). Without
// them no installed version, upgrade path or removed operator can be read, and every
// operator the render installs is a new install.
func (req Request) olmNote() (string, error) {
	sc, ok := req.Cluster.(cluster.ServedChecker)
	if !ok {
		return "", nil
	}
	var missing []string
	for _, kind := range []string{kindSub, kindCSV} {
		served, err := sc.Serves(olmV1alpha1, kind)
		if err != nil {
			return "", fmt.Errorf("asking whether the cluster serves %s %s: %w", olmV1alpha1, kind, err)
		}
		if !served {
			missing = append(missing, kind)
		}
	}
	if len(missing) == 0 {
		return "", nil
	}
	return fmt.Sprintf("the cluster serves no OLM kinds (%s %s: OLM is not installed): installed versions, upgrade paths and removed operators could not be read, so every operator is planned as a new install",
		olmV1alpha1, strings.Join(missing, ", ")), nil
}
