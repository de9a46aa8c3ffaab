package catalog

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/operator-framework/api/pkg/operators/v1alpha1"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/yamlwrite"
)

// Contents is what a bundle installs besides its alm-examples, as far as a render needs it:
// the CustomResourceDefinitions (whole: the API server validates custom resources against
// them), and the parts of the ClusterServiceVersion's install strategy that say what the
// operator runs and may do. A Bundle whose Contents is nil has contents nobody read (a
// catalog of the newer shape, which carries only olm.csv.metadata, when no bundle image was
// pulled); an empty Contents is a bundle known to install nothing more.
type Contents struct {
	// CRDs are the bundle's CustomResourceDefinition manifests as compact JSON, sorted by
	// name. CRD decodes one.
	CRDs []json.RawMessage
	// crdNames are the CRDs' names, in the same order (read once)
	crdNames []string
	// canonical is set when the CRDs are canonicalJSON (read from a snapshot, or kept for
	// a channel head)
	canonical bool
	// packed holds the CRDs deflated while a catalog loads (CRDs is nil then): most bundles
	// head no channel, and their CRDs are dropped once the channels are known
	packed [][]byte
	// Permissions and ClusterPermissions are the install strategy's: the rules OLM grants
	// each service account, namespaced and cluster-wide.
	Permissions        []v1alpha1.StrategyDeploymentPermissions
	ClusterPermissions []v1alpha1.StrategyDeploymentPermissions
	// Deployments are the names of the install strategy's deployments, in CSV order.
	Deployments []string
	// OwnedCRDs and RequiredCRDs are the CSV's spec.customresourcedefinitions lists.
	OwnedCRDs, RequiredCRDs []CRDRef
	// Objects are the bundle's other manifests (Services, roles, ConfigMaps…), by reference,
	// sorted.
	Objects []ObjectRef
}

// CRDRef names a CRD the CSV owns or requires: its name (plural.group), a version, a kind.
type CRDRef struct {
	Name, Version, Kind string
}

// ObjectRef names a manifest of a bundle.
type ObjectRef struct {
	APIVersion, Kind, Name string
}

// CRD decodes the i-th CRD manifest. Numbers are exact (json.Number); the caller may modify
// the result.
func (c *Contents) CRD(i int) (map[string]any, error) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(c.CRDs[i]))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// CRDName returns the metadata.name of the i-th CRD without decoding all of it.
func (c *Contents) CRDName(i int) string {
	if i < len(c.crdNames) {
		return c.crdNames[i]
	}
	return objectHeadOf(c.CRDs[i]).Metadata.Name
}

// objectHead is what every manifest of a bundle is sorted and referred to by.
type objectHead struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
}

func objectHeadOf(raw []byte) objectHead {
	if h, ok := peekObjectHead(raw); ok {
		return h
	}
	var h objectHead
	_ = json.Unmarshal(raw, &h) // every stored manifest was decoded once already
	return h
}

const kindCRD = "CustomResourceDefinition"

// isCRD tells a CustomResourceDefinition manifest (v1, or the v1beta1 older bundles carry).
func isCRD(h objectHead) bool {
	return h.Kind == kindCRD && strings.HasPrefix(h.APIVersion, "apiextensions.k8s.io/")
}

// csvInstall is the part of a CSV's spec that Contents keeps.
type csvInstall struct {
	CustomResourceDefinitions struct {
		Owned    []CRDRef `json:"owned"`
		Required []CRDRef `json:"required"`
	} `json:"customresourcedefinitions"`
	Install struct {
		Strategy string `json:"strategy"`
		Spec     struct {
			Permissions        []v1alpha1.StrategyDeploymentPermissions `json:"permissions"`
			ClusterPermissions []v1alpha1.StrategyDeploymentPermissions `json:"clusterPermissions"`
			Deployments        []struct {
				Name string `json:"name"`
			} `json:"deployments"`
		} `json:"spec"`
	} `json:"install"`
}

// contentsBuilder gathers a bundle's olm.bundle.object manifests; pack deflates the CRDs
// (see Contents.packed).
type contentsBuilder struct {
	c    Contents
	csv  *csvObject
	pack bool
}

// add takes one decoded manifest. The CSV is parsed; CRDs are kept whole; the rest by
// reference.
func (cb *contentsBuilder) add(raw []byte) error {
	// the head is peeked; the whole is validated by what reads it next (the CSV's decode, the
	// CRD's compaction), or here for the other manifests
	h, ok := peekObjectHead(raw)
	if !ok || (h.Kind != "ClusterServiceVersion" && !isCRD(h) && !json.Valid(raw)) {
		if err := json.Unmarshal(raw, &h); err != nil {
			return fmt.Errorf("data: invalid JSON manifest: %w", err)
		}
	}
	switch {
	case h.Kind == "ClusterServiceVersion":
		if cb.csv != nil {
			return fmt.Errorf("a second ClusterServiceVersion among the bundle objects")
		}
		var csv csvObject
		if err := json.Unmarshal(raw, &csv); err != nil {
			return fmt.Errorf("ClusterServiceVersion: %w", err)
		}
		cb.csv = &csv
		in := csv.Spec.csvInstall
		cb.c.Permissions = in.Install.Spec.Permissions
		cb.c.ClusterPermissions = in.Install.Spec.ClusterPermissions
		for _, d := range in.Install.Spec.Deployments {
			cb.c.Deployments = append(cb.c.Deployments, d.Name)
		}
		cb.c.OwnedCRDs = in.CustomResourceDefinitions.Owned
		cb.c.RequiredCRDs = in.CustomResourceDefinitions.Required
	case isCRD(h):
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return fmt.Errorf("%s: %w", kindCRD, err)
		}
		if cb.pack {
			packed, err := deflate(buf.Bytes())
			if err != nil {
				return fmt.Errorf("%s: %w", kindCRD, err)
			}
			cb.c.packed = append(cb.c.packed, packed)
		} else {
			cb.c.CRDs = append(cb.c.CRDs, bytes.Clone(buf.Bytes()))
		}
		cb.c.crdNames = append(cb.c.crdNames, h.Metadata.Name)
	default:
		cb.c.Objects = append(cb.c.Objects, ObjectRef{APIVersion: h.APIVersion, Kind: h.Kind, Name: h.Metadata.Name})
	}
	return nil
}

// contents returns what was gathered, in a canonical order.
func (cb *contentsBuilder) contents() *Contents {
	c := cb.c
	order := make([]int, len(c.crdNames))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(c.crdNames[a], c.crdNames[b]) })
	names := make([]string, len(order))
	for i, o := range order {
		names[i] = c.crdNames[o]
	}
	if cb.pack {
		packed := make([][]byte, len(order))
		for i, o := range order {
			packed[i] = c.packed[o]
		}
		c.packed = packed
	} else {
		crds := make([]json.RawMessage, len(order))
		for i, o := range order {
			crds[i] = c.CRDs[o]
		}
		c.CRDs = crds
	}
	c.crdNames = names
	slices.SortStableFunc(c.Objects, func(a, b ObjectRef) int {
		return strings.Compare(a.APIVersion+"\x00"+a.Kind+"\x00"+a.Name, b.APIVersion+"\x00"+b.Kind+"\x00"+b.Name)
	})
	return &c
}

// contentsRecordOf is the contents field of a snapshot bundle: the CRDs whole (each one line
// of canonical JSON: CRDs are machine data of hundreds of kB, which block style would make
// several times larger and slower to write), the rest as OLM writes it in a CSV. crds is
// always written, so that known-but-empty contents stay known.
func contentsRecordOf(c *Contents) (*contentsRecord[jsonFlow], error) {
	r := &contentsRecord[jsonFlow]{CRDs: make([]jsonFlow, 0, len(c.CRDs)), Permissions: c.Permissions,
		ClusterPermissions: c.ClusterPermissions, Deployments: c.Deployments}
	for i, raw := range c.CRDs {
		if !c.canonical { // a Contents made by a caller, not by Load
			m, err := c.CRD(i)
			if err == nil {
				raw, err = canonicalJSON(m)
			}
			if err != nil {
				return nil, fmt.Errorf("CRD %d: %w", i, err)
			}
		}
		r.CRDs = append(r.CRDs, jsonFlow(raw))
	}
	for _, x := range c.OwnedCRDs {
		r.OwnedCRDs = append(r.OwnedCRDs, crdRefRecord(x))
	}
	for _, x := range c.RequiredCRDs {
		r.RequiredCRDs = append(r.RequiredCRDs, crdRefRecord(x))
	}
	for _, o := range c.Objects {
		r.Objects = append(r.Objects, objectRefRecord(o))
	}
	return r, nil
}

// decodeSnapshotContents reads the contents field of a snapshot bundle.
func decodeSnapshotContents(m map[string]any) (*Contents, error) {
	var r contentsRecord[map[string]any]
	if err := decodeSnapshotRecord(m, &r); err != nil {
		return nil, err
	}
	c := &Contents{Permissions: r.Permissions, ClusterPermissions: r.ClusterPermissions, Deployments: r.Deployments,
		canonical: true}
	for i, crd := range r.CRDs {
		raw, err := canonicalJSON(jsonValue(crd))
		if err != nil {
			return nil, fmt.Errorf("crds element %d: %w", i, err)
		}
		h := objectHeadOf(raw)
		if !isCRD(h) {
			return nil, fmt.Errorf("crds element %d: kind %q is not a %s", i, h.Kind, kindCRD)
		}
		c.CRDs = append(c.CRDs, raw)
		c.crdNames = append(c.crdNames, h.Metadata.Name)
	}
	for _, l := range []struct {
		from []crdRefRecord
		to   *[]CRDRef
	}{{r.OwnedCRDs, &c.OwnedCRDs}, {r.RequiredCRDs, &c.RequiredCRDs}} {
		for _, x := range l.from {
			*l.to = append(*l.to, CRDRef(x))
		}
	}
	for _, o := range r.Objects {
		c.Objects = append(c.Objects, ObjectRef(o))
	}
	return c, nil
}

// strictJSON decodes a value tree into dst through JSON, refusing unknown fields.
func strictJSON(v any, dst any) error {
	raw, err := manifest.MarshalJSON(jsonValue(v))
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(dst)
}

// ManifestFile is a file of a bundle's manifests folder (registry+v1 layout: the CSV, CRDs
// and other objects, as YAML or JSON, one or more documents each).
type ManifestFile struct {
	Name string
	Data []byte
}

// ContentsFromManifests reads a bundle's manifests folder, as a pulled bundle image holds
// it. Every document must be a Kubernetes object; files that are not YAML or JSON are
// skipped by the caller.
func ContentsFromManifests(files []ManifestFile) (*Contents, error) {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b ManifestFile) int { return strings.Compare(a.Name, b.Name) })
	cb := &contentsBuilder{}
	for _, f := range files {
		dec := k8syaml.NewYAMLOrJSONDecoder(bytes.NewReader(f.Data), 4096)
		for i := 0; ; i++ {
			var raw json.RawMessage
			err := dec.Decode(&raw)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("%s: document %d: %w", f.Name, i+1, err)
			}
			if len(bytes.TrimSpace(raw)) == 0 || string(raw) == "null" {
				continue
			}
			if err := cb.add(raw); err != nil {
				return nil, fmt.Errorf("%s: document %d: %w", f.Name, i+1, err)
			}
		}
	}
	if cb.csv == nil {
		return nil, errors.New("the manifests hold no ClusterServiceVersion")
	}
	return cb.contents(), nil
}

// UnmarshalJSON reads Contents as encoding/json writes them (a cache of pulled contents),
// with the CRDs' names read once, as the other readers do.
func (c *Contents) UnmarshalJSON(data []byte) error {
	type plain Contents
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	*c = Contents(p)
	c.crdNames = make([]string, len(c.CRDs))
	for i, raw := range c.CRDs {
		c.crdNames[i] = objectHeadOf(raw).Metadata.Name
	}
	return nil
}

// canonicalize rewrites the CRDs as canonicalJSON, once (Builder.Catalog, before anyone
// reads them).
func (c *Contents) canonicalize() error {
	if c.packed != nil {
		c.CRDs = make([]json.RawMessage, len(c.packed))
		for i, p := range c.packed {
			raw, err := inflate(p)
			if err != nil {
				return fmt.Errorf("CRD %d: %w", i, err)
			}
			c.CRDs[i] = raw
		}
		c.packed = nil
	}
	if c.canonical {
		return nil
	}
	for i := range c.CRDs {
		m, err := c.CRD(i)
		if err != nil {
			return fmt.Errorf("CRD %d: %w", i, err)
		}
		if c.CRDs[i], err = canonicalJSON(m); err != nil {
			return fmt.Errorf("CRD %d: %w", i, err)
		}
	}
	c.canonical = true
	return nil
}

// canonicalJSON is the compact JSON of a value tree, keys sorted, with every character a
// YAML reader would not take literally inside a double-quoted scalar escaped (\uXXXX): the
// text is then the same JSON and a valid YAML flow collection, and reading it back and
// writing it again gives the same bytes.
func canonicalJSON(v any) (json.RawMessage, error) {
	raw, err := manifest.MarshalJSON(v)
	if err != nil {
		return nil, err
	}
	clean := true
	for _, c := range raw {
		if c >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return raw, nil
	}
	out := make([]byte, 0, len(raw)+16)
	for i := 0; i < len(raw); {
		r, size := utf8.DecodeRune(raw[i:])
		if r >= 0x80 && (!yamlwrite.Printable(r) || r == 0xFEFF) {
			if r > 0xFFFF {
				r1, r2 := utf16.EncodeRune(r)
				out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
		} else {
			out = append(out, raw[i:i+size]...)
		}
		i += size
	}
	return out, nil
}

// deflate and inflate pack CRD text while a catalog loads (fast compression: CRD JSON
// shrinks about tenfold).
func deflate(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, _ := deflaters.Get().(*flate.Writer)
	if w == nil {
		var err error
		if w, err = flate.NewWriter(&buf, flate.BestSpeed); err != nil {
			return nil, err
		}
	} else {
		w.Reset(&buf)
	}
	defer deflaters.Put(w)
	if _, err := w.Write(b); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}

// deflaters reuses flate writers (each holds about a megabyte of state).
var deflaters sync.Pool

func inflate(b []byte) ([]byte, error) {
	return io.ReadAll(flate.NewReader(bytes.NewReader(b)))
}

// ContentsFromFolder reads a bundle's manifests folder on disk (registry+v1: the
// `manifests/` of an unpacked bundle image or of an operator repository's bundle), its YAML
// and JSON files, as ContentsFromManifests does.
func ContentsFromFolder(dir string) (*Contents, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []ManifestFile
	for _, e := range entries {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".yaml", ".yml", ".json":
		default:
			continue
		}
		if !e.Type().IsRegular() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		files = append(files, ManifestFile{Name: e.Name(), Data: data})
	}
	c, err := ContentsFromManifests(files)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return c, nil
}
