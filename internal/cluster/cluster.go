// Package cluster owns reading objects that templates and bind-info copies refer to, from
// the places a render may look: a snapshot (objects exported from a cluster, held in
// memory) and a live cluster (internal/cluster/live: read-only GET requests through client-go).
// It does not import pkg/render or client-go, and it never writes to a cluster.
package cluster

import (
	"errors"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// Reader reads one object. found is false when the object does not exist; err is a failure
// to read (unreachable, forbidden, a kind the cluster does not serve).
type Reader interface {
	Get(apiVersion, kind, namespace, name string) (obj map[string]any, found bool, err error)
}

// Origin names where a Reader's objects come from ("input", "snapshot", "live"), for
// explanations.
type Origin string

const (
	OriginInputs   Origin = "inputs"
	OriginSnapshot Origin = "snapshot"
	OriginLive     Origin = "live"
)

// Source is a Reader with the origin of its objects.
type Source struct {
	Origin Origin
	Reader Reader
}

// Chain reads from its sources in order: the first that has the object wins, so that
// inputs win over a snapshot, which wins over a live cluster. A read error stops the chain.
type Chain []Source

// Get implements Reader.
func (c Chain) Get(apiVersion, kind, namespace, name string) (map[string]any, bool, error) {
	obj, _, found, err := c.GetWithOrigin(apiVersion, kind, namespace, name)
	return obj, found, err
}

// GetWithOrigin is Get that also says which source had the object.
func (c Chain) GetWithOrigin(apiVersion, kind, namespace, name string) (map[string]any, Origin, bool, error) {
	for _, s := range c {
		if s.Reader == nil {
			continue
		}
		obj, found, err := s.Reader.Get(apiVersion, kind, namespace, name)
		if err != nil {
			return nil, s.Origin, false, err
		}
		if found {
			return obj, s.Origin, true, nil
		}
	}
	return nil, "", false, nil
}

// ErrNotServed is wrapped by readers that know a kind is not served (no CRD yet): a look-up
// that asks whether an object exists may take it as "none".
var ErrNotServed = errors.New("kind not served")

// Lister lists the objects of a kind a Reader holds, in one namespace or, with namespace "",
// in all namespaces (cluster-scoped kinds ignore namespace). Snapshots list from memory; a
// live cluster sends one LIST (a GET) per call.
type Lister interface {
	List(apiVersion, kind, namespace string) ([]map[string]any, error)
}

// List returns the objects of a kind from every source that can list, in source order
// (the same object from two sources is returned from the first). A source that fails to
// list stops the chain with its error; a kind a source does not serve is an empty list.
func (c Chain) List(apiVersion, kind, namespace string) ([]map[string]any, error) {
	var out []map[string]any
	seen := map[manifest.Key]bool{}
	for _, s := range c {
		l, ok := s.Reader.(Lister)
		if !ok {
			continue
		}
		objs, err := l.List(apiVersion, kind, namespace)
		if errors.Is(err, ErrNotServed) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			k := objectKey(o)
			if !seen[k] {
				seen[k] = true
				out = append(out, o)
			}
		}
	}
	return out, nil
}
