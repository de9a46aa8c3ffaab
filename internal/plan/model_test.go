package plan

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBlocked: what --fail-on blocked counts, operator by operator.
func TestBlocked(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		op   Operator
		want bool
	}{
		{"an upgrade with a path", Operator{Action: ActionUpgrade, Path: []Hop{{From: "a", To: "b"}}}, false},
		{"a new install", Operator{Action: ActionInstall}, false},
		{"unchanged", Operator{Action: ActionUnchanged}, false},
		{"a removal", Operator{Action: ActionRemove}, false},
		{"no path", Operator{Action: ActionUpgrade, PathError: "the installed CSV is not in the channel"}, true},
		{"behind", Operator{Action: ActionBehind}, true},
		{"a hop OpenShift blocks", Operator{Action: ActionUpgrade, Path: []Hop{{From: "a", To: "b"}, {From: "b", To: "c", OpenShiftBlocked: true}}}, true},
		{"a hop Kubernetes blocks", Operator{Action: ActionUpgrade, Path: []Hop{{From: "a", To: "b", KubeBlocked: true}}}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, tc.op.blocked())
			want := 0
			if tc.want {
				want = 1
			}
			assert.Equal(t, want, Plan{Operators: []Operator{tc.op, {Action: ActionInstall}}}.Blocked())
		})
	}
}
