package cluster

import (
	"slices"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// Snapshot is a Reader over objects held in memory: a `kubectl get -o yaml` export of a
// cluster (Lists are flattened), or the render's own inputs.
type Snapshot struct {
	objects map[manifest.Key]map[string]any
}

// NewSnapshot indexes objects by group, kind, namespace and name (the version is ignored,
// as an API server serves one object under all its versions). A later duplicate wins.
func NewSnapshot(objs []*manifest.Object) *Snapshot {
	s := &Snapshot{objects: make(map[manifest.Key]map[string]any, len(objs))}
	for _, o := range objs {
		s.Add(o)
	}
	return s
}

// Add indexes one more object.
func (s *Snapshot) Add(o *manifest.Object) {
	s.objects[o.Ref().Key()] = o.Map
}

// Len is the number of objects held.
func (s *Snapshot) Len() int { return len(s.objects) }

// Get implements Reader. A reference with a namespace finds a cluster-scoped object of that
// name too, as an API client ignores the namespace of cluster-scoped kinds.
func (s *Snapshot) Get(apiVersion, kind, namespace, name string) (map[string]any, bool, error) {
	ref := manifest.Ref{APIVersion: apiVersion, Kind: kind, Namespace: namespace, Name: name}
	if o, ok := s.objects[ref.Key()]; ok {
		return o, true, nil
	}
	if namespace != "" {
		ref.Namespace = ""
		if o, ok := s.objects[ref.Key()]; ok {
			return o, true, nil
		}
	}
	return nil, false, nil
}

// List implements Lister: the objects of the group and kind of apiVersion/kind in namespace
// ("" for all namespaces; cluster-scoped objects match any namespace), sorted by namespace
// and name.
func (s *Snapshot) List(apiVersion, kind, namespace string) ([]map[string]any, error) {
	gk := manifest.Ref{APIVersion: apiVersion, Kind: kind}.Key().GroupKind()
	var keys []manifest.Key
	for k := range s.objects {
		if k.GroupKind() == gk && (namespace == "" || k.Namespace == "" || k.Namespace == namespace) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, manifest.Key.Compare)
	out := make([]map[string]any, len(keys))
	for i, k := range keys {
		out[i] = s.objects[k]
	}
	return out, nil
}

// objectKey identifies a value-tree object like manifest.Ref.Key.
func objectKey(o map[string]any) manifest.Key {
	return (&manifest.Object{Map: o}).Ref().Key()
}
