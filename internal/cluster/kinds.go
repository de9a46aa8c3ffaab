package cluster

import (
	"errors"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// ErrForbidden is wrapped by readers whose user may not read what was asked (RBAC): a
// search that can do without the answer may note it instead of failing.
var ErrForbidden = errors.New("forbidden")

// ErrIncompleteKinds is wrapped by a KindLister that found some kinds but could not learn
// all of them (a group-version whose discovery failed): the kinds it returns are those it
// found.
var ErrIncompleteKinds = errors.New("the kinds of some group-versions are unknown")

// Kind is a kind a Reader holds objects of: its apiVersion (one of its group's versions)
// and its name.
type Kind struct {
	APIVersion string
	Kind       string
}

// String is "Kind (apiVersion)".
func (k Kind) String() string { return k.Kind + " (" + k.APIVersion + ")" }

// key identifies a kind by group and name, as objects are identified.
func (k Kind) key() manifest.GroupKind {
	return manifest.Ref{APIVersion: k.APIVersion, Kind: k.Kind}.Key().GroupKind()
}

// KindLister says which kinds a Reader may hold objects of: a snapshot the kinds of its
// objects, a live cluster the kinds it serves that can be listed.
type KindLister interface {
	// Kinds returns the kinds, each group and kind once, sorted by apiVersion and kind. An
	// error wrapping ErrIncompleteKinds comes with the kinds that were found.
	Kinds() ([]Kind, error)
}

// LabelLister lists the objects of a kind that carry a label with a value, as Lister.List
// does for all of them: a live cluster filters on the server (a label selector), so that
// only those objects are read.
type LabelLister interface {
	ListLabelled(apiVersion, kind, namespace, label, value string) ([]map[string]any, error)
}

// HasLabel tells whether obj has metadata.labels[label] == value.
func HasLabel(obj map[string]any, label, value string) bool {
	md, _ := obj["metadata"].(map[string]any)
	labels, _ := md["labels"].(map[string]any)
	v, ok := labels[label].(string)
	return ok && v == value
}

// Kinds implements KindLister: the union of the kinds of the sources that can tell, each
// group and kind once, sorted. A kind gets the apiVersion of the last source that holds it:
// a live cluster, last in a chain, serves it in that version, while a snapshot matches any
// version of the group. A source that fails stops the chain with its error, except an
// ErrIncompleteKinds one: its kinds are kept and its error is returned, with the union, at
// the end.
func (c Chain) Kinds() ([]Kind, error) {
	var out []Kind
	var incomplete []error
	at := map[manifest.GroupKind]int{} // index in out, by group and kind
	for _, s := range c {
		kl, ok := s.Reader.(KindLister)
		if !ok {
			continue
		}
		kinds, err := kl.Kinds()
		switch {
		case errors.Is(err, ErrIncompleteKinds):
			incomplete = append(incomplete, err)
		case err != nil:
			return nil, err
		}
		for _, k := range kinds {
			if i, ok := at[k.key()]; ok {
				out[i] = k
				continue
			}
			at[k.key()] = len(out)
			out = append(out, k)
		}
	}
	SortKinds(out)
	return out, errors.Join(incomplete...)
}

// ListLabelled implements LabelLister: the labelled objects of a kind from every source
// that can list, in source order, as List. A source without ListLabelled is listed whole
// and filtered.
func (c Chain) ListLabelled(apiVersion, kind, namespace, label, value string) ([]map[string]any, error) {
	var out []map[string]any
	seen := map[manifest.Key]bool{}
	for _, s := range c {
		objs, err := Labelled(s.Reader, apiVersion, kind, namespace, label, value)
		if errors.Is(err, ErrNotServed) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			if k := objectKey(o); !seen[k] {
				seen[k] = true
				out = append(out, o)
			}
		}
	}
	return out, nil
}

// Labelled lists the objects of a kind that one reader holds with the label: with its
// ListLabelled, else its List filtered; a reader that can do neither holds none. The answer
// is filtered in every case: a server's is not trusted to match.
func Labelled(r Reader, apiVersion, kind, namespace, label, value string) ([]map[string]any, error) {
	var objs []map[string]any
	var err error
	switch l := r.(type) {
	case LabelLister:
		objs, err = l.ListLabelled(apiVersion, kind, namespace, label, value)
	case Lister:
		objs, err = l.List(apiVersion, kind, namespace)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return withLabel(objs, label, value), nil
}

// withLabel keeps the objects that have the label with the value.
func withLabel(objs []map[string]any, label, value string) []map[string]any {
	out := []map[string]any{}
	for _, o := range objs {
		if HasLabel(o, label, value) {
			out = append(out, o)
		}
	}
	return out
}

// ServedChecker is a Reader that can tell whether its cluster serves a kind (a live
// cluster; a snapshot cannot: it holds what was exported).
type ServedChecker interface {
	Serves(apiVersion, kind string) (bool, error)
}

// Serves implements ServedChecker: false when the sources that can tell all say the kind
// is not served, true when one serves it or none can tell. A source that fails stops the
// chain with its error.
func (c Chain) Serves(apiVersion, kind string) (bool, error) {
	told := false
	for _, s := range c {
		sc, ok := s.Reader.(ServedChecker)
		if !ok {
			continue
		}
		served, err := sc.Serves(apiVersion, kind)
		if err != nil || served {
			return served, err
		}
		told = true
	}
	return !told, nil
}

// SortKinds sorts kinds by apiVersion, then kind.
func SortKinds(kinds []Kind) {
	slices.SortFunc(kinds, func(a, b Kind) int {
		if c := strings.Compare(a.APIVersion, b.APIVersion); c != 0 {
			return c
		}
		return strings.Compare(a.Kind, b.Kind)
	})
}

// Kinds implements KindLister: the kinds of the objects held (the apiVersion of the first
// object of each group and kind, in key order), sorted.
func (s *Snapshot) Kinds() ([]Kind, error) {
	keys := make([]manifest.Key, 0, len(s.objects))
	for k := range s.objects {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, manifest.Key.Compare)
	seen := map[manifest.GroupKind]bool{}
	var out []Kind
	for _, k := range keys {
		obj := s.objects[k]
		apiVersion, _ := obj["apiVersion"].(string)
		kind, _ := obj["kind"].(string)
		kd := Kind{APIVersion: apiVersion, Kind: kind}
		if kind == "" || seen[kd.key()] {
			continue
		}
		seen[kd.key()] = true
		out = append(out, kd)
	}
	SortKinds(out)
	return out, nil
}

// ListLabelled implements LabelLister: List, filtered in memory.
func (s *Snapshot) ListLabelled(apiVersion, kind, namespace, label, value string) ([]map[string]any, error) {
	objs, err := s.List(apiVersion, kind, namespace)
	if err != nil {
		return nil, err
	}
	return withLabel(objs, label, value), nil
}
