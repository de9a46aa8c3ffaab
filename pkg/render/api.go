package render

import (
	"github.com/odlm-render/odlm-render/internal/cluster"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/template/secret"
)

// The public API of the engine is this package and pkg/catalog; the machinery lives under
// internal/. These aliases name the internal types the API carries, so that a program
// using the engine can build its Inputs and read its Output.
type (
	// Object is one Kubernetes object as an exact value tree, with where it was read from.
	Object = manifest.Object
	// Result is one diagnostic: severity, message, object, field and source location.
	Result = diag.Result
	// Results are a render's diagnostics.
	Results = diag.Results
	// Severity is error, warning or info.
	Severity = diag.Severity
	// Source is a place the render reads cluster state from (a snapshot, a live cluster).
	Source = cluster.Source
	// Sources are read in order, after the objects the render emits and the inputs.
	Sources = cluster.Chain
	// Reader reads one object; Lister lists a kind (optional for a Source's Reader).
	Reader = cluster.Reader
	Lister = cluster.Lister
	// Origin names a Source in explanations and results ("snapshot", "live"; OriginRendered
	// for the objects the render emits).
	Origin = cluster.Origin
	// Kind is a kind a Source holds objects of (Sources.Kinds).
	Kind = cluster.Kind
	// ObjectRef names an object: apiVersion, kind, namespace, name (Object.Ref, Result.Object).
	ObjectRef = manifest.Ref
	// ObjectKey identifies an object by group, kind, namespace and name, as an API server
	// does (ObjectRef.Key): comparable, a map key.
	ObjectKey = manifest.Key
	// GroupKind names a kind in an API group (ObjectKey.GroupKind).
	GroupKind = manifest.GroupKind
	// ObjectSource is where an Object was read from: file, document index, line
	// (Object.Source).
	ObjectSource = manifest.Source
	// PathStep is one step of a field path: a map key or a list index.
	PathStep = manifest.PathStep
	// Anchor is the object and field a result is about, beside where it was found
	// (Result.At).
	Anchor = diag.Anchor
	// SecretFields are the fields of an object that hold a value read from a Secret
	// (Output.SecretFields).
	SecretFields = secret.Fields
)

// NewObject wraps a value tree (map[string]any, []any, string, bool, nil, json.Number) as an
// Object.
func NewObject(m map[string]any) *Object { return manifest.New(m) }

// DecodeObjects reads a YAML or JSON stream of objects; name is used in locations.
func DecodeObjects(name string, data []byte) ([]*Object, error) { return manifest.Decode(name, data) }

// NewSnapshot is a Reader and Lister over objects held in memory (a cluster export).
func NewSnapshot(objs []*Object) Reader { return cluster.NewSnapshot(objs) }
