package plan

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/naming"
)

// Objects is the render as a whole against the cluster: the objects it generates that the
// cluster lacks (Added) or has otherwise (Changed), how many it has as rendered (Unchanged),
// and the objects with ODLM's control label the render no longer generates (Removed).
type Objects struct {
	Added     []ObjectRef    `json:"added"`
	Changed   []ObjectChange `json:"changed"`
	Unchanged int            `json:"unchanged"`
	Removed   []ObjectRef    `json:"removed"`
	// secrets are the texts of Secret values met while comparing, hidden wherever they show.
	secrets secretTexts
}

// ObjectRef names one object.
type ObjectRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
}

// ObjectChange is one object the render changes, and the fields it changes.
type ObjectChange struct {
	ObjectRef
	Fields []FieldChange `json:"fields"`
}

// FieldChange is one field of a changed object: its JSON path, whether the render adds it
// (the cluster lacks it), removes it (the render sets it to null) or changes it, and the
// values before and after, shortened; a Secret's value is "(value hidden)".
type FieldChange struct {
	Path   string `json:"path"`
	Change string `json:"change"`
	Old    string `json:"old"`
	New    string `json:"new"`

	steps []manifest.PathStep // Path as the render marks Secret-derived fields
}

// Field change kinds.
const (
	FieldAdded   = "added"
	FieldRemoved = "removed"
	FieldChanged = "changed"
)

// hidden stands for a value that holds a Secret's data.
const hidden = "(value hidden)"

// maxValue is how long a value printed in a field change may be, in characters.
const maxValue = 60

// newObjects is an Objects with every list empty, not nil.
func newObjects() Objects {
	return Objects{Added: []ObjectRef{}, Changed: []ObjectChange{}, Removed: []ObjectRef{}}
}

// refOf names a value-tree object.
func refOf(obj map[string]any) ObjectRef {
	return ObjectRef{APIVersion: str(obj, "apiVersion"), Kind: str(obj, "kind"),
		Namespace: str(obj, "metadata", "namespace"), Name: str(obj, "metadata", "name")}
}

// key identifies a ref by group, kind, namespace and name, as the cluster does.
func (r ObjectRef) key() manifest.Key {
	return manifest.Ref{APIVersion: r.APIVersion, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}.Key()
}

// isSecret tells whether r is a core Secret.
func (r ObjectRef) isSecret() bool {
	return r.Kind == "Secret" && !strings.Contains(r.APIVersion, "/")
}

// text is "Kind namespace/name (apiVersion)".
func (r ObjectRef) text() string {
	id := r.Name
	if r.Namespace != "" {
		id = r.Namespace + "/" + id
	}
	return fmt.Sprintf("%s %s (%s)", r.Kind, id, r.APIVersion)
}

// compareRef orders refs by key.
func compareRef(a, b ObjectRef) int { return a.key().Compare(b.key()) }

// renderedObjects compares the render's generated objects with the cluster's. The notes
// say what could not be searched for removed objects.
func (req Request) renderedObjects() (Objects, []string, error) {
	out := newObjects()
	rendered := uniqueObjects(req.Rendered)
	secrets, secretNotes, err := req.collectSecrets(rendered)
	if err != nil {
		return Objects{}, nil, err
	}
	out.secrets = secrets
	produced := map[manifest.Key]bool{}
	for _, obj := range rendered {
		ref := refOf(obj)
		produced[ref.key()] = true
		if err := req.compareOne(&out, ref, obj); err != nil {
			return Objects{}, nil, err
		}
	}
	notes, err := req.removedObjects(&out, rendered, produced)
	if err != nil {
		return Objects{}, nil, err
	}
	notes = append(secretNotes, notes...)
	out.finish(req.SecretFields)
	slices.SortFunc(out.Added, compareRef)
	slices.SortFunc(out.Removed, compareRef)
	slices.SortFunc(out.Changed, func(a, b ObjectChange) int { return compareRef(a.ObjectRef, b.ObjectRef) })
	return out, notes, nil
}

// collectSecrets gathers, before any value is printed, the values of the rendered Secrets,
// of the cluster's Secrets of the same names, and of every Secret the cluster read holds in
// the namespaces of the rendered objects: a cluster object (a labelled ConfigMap, say) may
// hold a copy of any of them, which nothing in the render marks. A namespace whose Secrets
// the user may not list is a note.
func (req Request) collectSecrets(rendered []map[string]any) (secretTexts, []string, error) {
	s := secretTexts{}
	namespaces := map[string]bool{}
	for _, obj := range rendered {
		ref := refOf(obj)
		namespaces[ref.Namespace] = true
		if !ref.isSecret() {
			continue
		}
		s.addSecret(obj)
		live, found, err := req.Cluster.Get(ref.APIVersion, ref.Kind, ref.Namespace, ref.Name)
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", ref.text(), err)
		}
		if found {
			s.addSecret(live)
		}
	}
	var forbidden []string
	for _, ns := range slices.Sorted(maps.Keys(namespaces)) {
		if ns == "" {
			continue
		}
		secrets, err := req.Cluster.List("v1", "Secret", ns)
		switch {
		case errors.Is(err, cluster.ErrForbidden):
			forbidden = append(forbidden, ns)
		case errors.Is(err, cluster.ErrNotServed):
		case err != nil:
			return nil, nil, fmt.Errorf("listing the Secrets of namespace %s: %w", ns, err)
		}
		for _, secret := range secrets {
			s.addSecret(secret)
		}
	}
	var notes []string
	if len(forbidden) > 0 {
		notes = append(notes, fmt.Sprintf("the Secrets of namespace(s) %s may not be listed (forbidden): a value copied from one of them into another object prints as it is", strings.Join(forbidden, ", ")))
	}
	return s, notes, nil
}

// uniqueObjects drops objects without a kind or name and later duplicates of an identity.
func uniqueObjects(objs []map[string]any) []map[string]any {
	seen := map[manifest.Key]bool{}
	var out []map[string]any
	for _, o := range objs {
		ref := refOf(o)
		if ref.Kind == "" || ref.Name == "" || seen[ref.key()] {
			continue
		}
		seen[ref.key()] = true
		out = append(out, o)
	}
	return out
}

// compareOne files one rendered object as added, changed or unchanged. An object of a kind
// the cluster does not serve (yet: its CRD comes with an operator) is added.
func (req Request) compareOne(out *Objects, ref ObjectRef, obj map[string]any) error {
	live, found, err := req.Cluster.Get(ref.APIVersion, ref.Kind, ref.Namespace, ref.Name)
	if err != nil && !errors.Is(err, cluster.ErrNotServed) {
		return fmt.Errorf("reading %s: %w", ref.text(), err)
	}
	if !found {
		out.Added = append(out.Added, ref)
		return nil
	}
	fields := diffObject(ref, live, obj)
	if len(fields) == 0 {
		out.Unchanged++
		return nil
	}
	out.Changed = append(out.Changed, ObjectChange{ObjectRef: ref, Fields: fields})
	return nil
}

// removedObjects files the cluster's objects with ODLM's control label that the render no
// longer produces, searched among every kind the cluster holds (searchedKinds) with a label
// selector, so that no other object is read. It returns notes for the kinds it could not
// search: those the user may not list, and those discovery did not find. The values of the
// labelled Secrets it meets are hidden from the field changes.
func (req Request) removedObjects(out *Objects, rendered []map[string]any, produced map[manifest.Key]bool) ([]string, error) {
	kinds, notes, err := req.searchedKinds(rendered)
	if err != nil {
		return nil, err
	}
	var forbidden []cluster.Kind
	for _, kind := range kinds {
		objs, err := cluster.Labelled(req.Cluster, kind.APIVersion, kind.Kind, "", naming.ControlLabel, "true")
		switch {
		case errors.Is(err, cluster.ErrNotServed):
			continue
		case errors.Is(err, cluster.ErrForbidden):
			forbidden = append(forbidden, kind)
			continue
		case err != nil:
			return nil, fmt.Errorf("listing %s objects with the label %s: %w", kind, naming.ControlLabel, err)
		}
		out.fileRemoved(objs, produced)
	}
	if len(forbidden) > 0 {
		notes = append(notes, forbiddenNote(forbidden))
	}
	return notes, nil
}

// forbiddenNote is the plan note for the kinds the user may not list (each group and kind
// once, as searchedKinds gives them): how many, then the kinds by API group, as RBAC rules
// group them ("core" for the core group, first), groups and kinds sorted, for example
// "not searched for removed objects: 3 kinds the user may not list (forbidden), by API
// group: core: Pod, Secret; apps: DaemonSet". Dozens of kinds stay readable, and each
// one is named.
func forbiddenNote(kinds []cluster.Kind) string {
	byGroup := map[string][]string{}
	for _, k := range kinds {
		g := apiGroup(k.APIVersion)
		byGroup[g] = append(byGroup[g], k.Kind)
	}
	groups := slices.Sorted(maps.Keys(byGroup))
	parts := make([]string, 0, len(groups))
	for _, g := range groups {
		names := slices.Sorted(slices.Values(byGroup[g]))
		parts = append(parts, groupName(g)+": "+strings.Join(names, ", "))
	}
	what := "kinds"
	if len(kinds) == 1 {
		what = "kind"
	}
	return fmt.Sprintf("not searched for removed objects: %d %s the user may not list (forbidden), by API group: %s",
		len(kinds), what, strings.Join(parts, "; "))
}

// apiGroup is the group of an apiVersion: "" for the core group's "v1".
func apiGroup(apiVersion string) string {
	g, _, found := strings.Cut(apiVersion, "/")
	if !found {
		return ""
	}
	return g
}

// groupName is how a note names an API group: "core" for the core group.
func groupName(group string) string {
	if group == "" {
		return "core"
	}
	return group
}

// fileRemoved files the labelled objects the render does not produce as removed, once each,
// and collects the values of the Secrets among them.
func (o *Objects) fileRemoved(labelled []map[string]any, produced map[manifest.Key]bool) {
	for _, obj := range labelled {
		ref := refOf(obj)
		if ref.isSecret() {
			// a template may have copied this Secret's values into any rendered object
			o.secrets.addSecret(obj)
		}
		if produced[ref.key()] {
			continue
		}
		produced[ref.key()] = true
		o.Removed = append(o.Removed, ref)
	}
}

// searchedKinds are the kinds searched for removed objects: those the cluster holds, when it
// can tell (cluster.KindLister), and those the render generates, each group and kind once,
// sorted. The notes say which kinds the cluster could not tell.
func (req Request) searchedKinds(rendered []map[string]any) ([]cluster.Kind, []string, error) {
	var kinds []cluster.Kind
	var notes []string
	if kl, ok := req.Cluster.(cluster.KindLister); ok {
		held, err := kl.Kinds()
		switch {
		case errors.Is(err, cluster.ErrIncompleteKinds), errors.Is(err, cluster.ErrForbidden):
			notes = append(notes, fmt.Sprintf("not searched for removed objects: the kinds the cluster did not tell (%v)", err))
		case err != nil:
			return nil, nil, fmt.Errorf("reading the kinds the cluster holds: %w", err)
		}
		kinds = held
	}
	for _, obj := range rendered {
		ref := refOf(obj)
		kinds = append(kinds, cluster.Kind{APIVersion: ref.APIVersion, Kind: ref.Kind})
	}
	return uniqueKinds(kinds), notes, nil
}

// uniqueKinds are kinds without those lacking a name and without repeats of a group and
// kind (the first apiVersion wins), sorted.
func uniqueKinds(kinds []cluster.Kind) []cluster.Kind {
	seen := map[manifest.Key]bool{}
	out := []cluster.Kind{}
	for _, k := range kinds {
		key := ObjectRef{APIVersion: k.APIVersion, Kind: k.Kind}.key()
		if k.Kind == "" || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, k)
	}
	cluster.SortKinds(out)
	return out
}

// summary is "objects: N added, N changed, N unchanged, N removed".
func (o Objects) summary() string {
	return fmt.Sprintf("objects: %d added, %d changed, %d unchanged, %d removed", len(o.Added), len(o.Changed), o.Unchanged, len(o.Removed))
}

// line is one line of the objects section, at a nesting depth (0 or 1).
type line struct {
	depth int
	text  string
}

// lines are the objects section under its summary, shared by text and Markdown.
func (o Objects) lines() []line {
	var out []line
	for _, r := range o.Added {
		out = append(out, line{0, "added: " + r.text()})
	}
	for _, c := range o.Changed {
		out = append(out, line{0, "changed: " + c.text()})
		for _, f := range c.Fields {
			out = append(out, line{1, f.text()})
		}
	}
	for _, r := range o.Removed {
		out = append(out, line{0, "removed: " + r.text()})
	}
	return out
}

// text is "path: old -> new", "(none)" standing for a field one side lacks.
func (f FieldChange) text() string {
	return fmt.Sprintf("%s: %s -> %s", f.Path, orNoValue(f.Old), orNoValue(f.New))
}

// orNoValue is s, or "(none)".
func orNoValue(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
