// Package cluster owns reading objects that templates and bind-info copies refer to, from
// the places a render may look: a snapshot (objects exported from a cluster, held in
// memory) and a live cluster (pkg/cluster/live: read-only GET requests through client-go).
// It does not import pkg/render or client-go, and it never writes to a cluster.
package cluster

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

// Lister lists the objects of a kind a Reader holds. Snapshots can; a live cluster is only
// ever asked for named objects (GET), so it does not list.
type Lister interface {
	List(apiVersion, kind string) []map[string]any
}

// List returns the objects of a kind from every source that can list, in source order
// (the same object from two sources is returned from the first).
func (c Chain) List(apiVersion, kind string) []map[string]any {
	var out []map[string]any
	seen := map[string]bool{}
	for _, s := range c {
		l, ok := s.Reader.(Lister)
		if !ok {
			continue
		}
		for _, o := range l.List(apiVersion, kind) {
			k := objectKey(o)
			if !seen[k] {
				seen[k] = true
				out = append(out, o)
			}
		}
	}
	return out
}
