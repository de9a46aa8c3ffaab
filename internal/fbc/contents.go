package fbc

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
// them), the ClusterServiceVersion's install strategy (whole, and the parts that say what the
// operator runs and may do), and the bundle's other manifests (whole, and by reference). A
// Bundle whose Contents is nil has contents nobody read (a catalog of the newer shape, which
// carries only olm.csv.metadata, when no bundle image was pulled); an empty Contents is a
// bundle known to install nothing more.
type Contents struct {
	// CRDs are the bundle's CustomResourceDefinition manifests as compact JSON, sorted by
	// name. CRD decodes one.
	CRDs []json.RawMessage
	// crdNames are the CRDs' names, in the same order (read once)
	crdNames []string
	// canonical is set when the CRDs are canonicalJSON (read from a snapshot, or kept for
	// a channel head)
	canonical bool
	// packed holds the CRDs deflated while a catalog loads (CRDs is nil then), and
	// packedInstall Install and Manifests (both nil then): most bundles head no channel,
	// and their contents are dropped once the channels are known
	packed        [][]byte
	packedInstall []byte
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
	// Install is the CSV's install strategy whole; nil in contents read from a snapshot
	// written before it was kept (the render then asks for a new snapshot), and for the
	// bundle objects of a catalog that hold no ClusterServiceVersion.
	Install *Install
	// Manifests are the bundle's other manifests whole (Objects' order: Manifests[i] is
	// Objects[i]), as canonical JSON; nil when Install is nil. Manifest decodes one.
	Manifests []json.RawMessage
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
			Deployments        []csvDeployment                          `json:"deployments"`
		} `json:"spec"`
	} `json:"install"`
	WebhookDefinitions    []v1alpha1.WebhookDescription `json:"webhookdefinitions"`
	APIServiceDefinitions struct {
		// only the two fields an APIService's name is made of are read (OLM's
		// APIServiceDescription would also decode descriptors nobody reads)
		Owned []struct {
			Group   string `json:"group"`
			Version string `json:"version"`
		} `json:"owned"`
	} `json:"apiservicedefinitions"`
}

// contentsBuilder gathers a bundle's manifests (olm.bundle.object properties, or the files
// of a manifests folder); pack deflates the CRDs, the install strategy and the other
// manifests (see Contents.packed).
type contentsBuilder struct {
	c    Contents
	csv  *csvObject
	pack bool
}

// add takes one decoded manifest. The CSV is parsed, its install strategy kept whole; CRDs
// are kept whole; the rest whole and by reference.
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
		install, err := installOf(&csv, cb.pack)
		if err != nil {
			return fmt.Errorf("ClusterServiceVersion: %w", err)
		}
		cb.c.Install = install
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
		text, err := manifestText(raw, cb.pack)
		if err == nil && !isJSONObject(raw) {
			err = errors.New("the manifest is not a JSON object")
		}
		if err != nil {
			return fmt.Errorf("%s %q: %w", h.Kind, h.Metadata.Name, err)
		}
		cb.c.Objects = append(cb.c.Objects, ObjectRef{APIVersion: h.APIVersion, Kind: h.Kind, Name: h.Metadata.Name})
		cb.c.Manifests = append(cb.c.Manifests, text)
	}
	return nil
}

// contents returns what was gathered, in a canonical order, packed when pack is set.
func (cb *contentsBuilder) contents() (*Contents, error) {
	c := cb.c
	order := sortedOrder(c.crdNames, strings.Compare)
	c.crdNames = permuted(c.crdNames, order)
	if cb.pack {
		c.packed = permuted(c.packed, order)
	} else {
		c.CRDs = permuted(c.CRDs, order)
	}
	order = sortedOrder(c.Objects, func(a, b ObjectRef) int {
		return strings.Compare(a.APIVersion+"\x00"+a.Kind+"\x00"+a.Name, b.APIVersion+"\x00"+b.Kind+"\x00"+b.Name)
	})
	c.Objects = permuted(c.Objects, order)
	if c.Install == nil {
		c.Manifests = nil // bundle objects without a CSV: no install strategy to go with them
	} else {
		c.Manifests = permuted(c.Manifests, order)
	}
	if cb.pack {
		if err := c.packInstall(); err != nil {
			return nil, err
		}
	}
	return &c, nil
}

// sortedOrder is the order that sorts l by cmp, stably: l[order[0]] comes first.
func sortedOrder[E any](l []E, cmp func(a, b E) int) []int {
	order := make([]int, len(l))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp(l[a], l[b]) })
	return order
}

// permuted is l in the given order (nil stays nil).
func permuted[E any](l []E, order []int) []E {
	if l == nil {
		return nil
	}
	out := make([]E, len(order))
	for i, o := range order {
		out[i] = l[o]
	}
	return out
}

// contentsRecordOf is the contents field of a snapshot bundle: the CRDs and the other
// manifests whole (each one line of canonical JSON: CRDs are machine data of hundreds of kB,
// which block style would make several times larger and slower to write), the install
// strategy whole (its deployments' specs likewise), the rest as OLM writes it in a CSV. crds
// is always written, so that known-but-empty contents stay known.
func contentsRecordOf(c *Contents) (*contentsRecord[jsonFlow], error) {
	if err := c.checkManifests(); err != nil {
		return nil, err
	}
	r := &contentsRecord[jsonFlow]{Permissions: c.Permissions, ClusterPermissions: c.ClusterPermissions,
		Deployments: c.Deployments}
	var err error
	if r.CRDs, err = flowTexts(c.CRDs, c.canonical, "CRD"); err != nil {
		return nil, err
	}
	if r.Manifests, err = flowTexts(c.Manifests, c.canonical, "manifest"); err != nil {
		return nil, err
	}
	if c.Install != nil {
		if r.Install, err = installRecordOf(c.Install, c.canonical); err != nil {
			return nil, err
		}
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

// flowTexts are manifests as a snapshot writes them; canonical tells that they are
// canonicalJSON already (else they are made so: a Contents made by a caller, not by Load).
func flowTexts(l []json.RawMessage, canonical bool, what string) ([]jsonFlow, error) {
	out := make([]jsonFlow, 0, len(l))
	for i, raw := range l {
		if !canonical {
			var err error
			if raw, err = canonicalText(raw); err != nil {
				return nil, fmt.Errorf("%s %d: %w", what, i, err)
			}
		}
		out = append(out, jsonFlow(raw))
	}
	return out, nil
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
	if r.Install != nil {
		in, err := decodeInstallRecord(r.Install)
		if err != nil {
			return nil, fmt.Errorf("install: %w", err)
		}
		c.Install = in
	}
	for i, o := range r.Manifests {
		raw, err := canonicalJSON(jsonValue(o))
		if err != nil {
			return nil, fmt.Errorf("manifests element %d: %w", i, err)
		}
		c.Manifests = append(c.Manifests, raw)
	}
	if err := c.checkManifests(); err != nil {
		return nil, err
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
	return cb.contents()
}

// UnmarshalJSON reads Contents as encoding/json writes them (a cache of pulled contents),
// with the CRDs' names read once and the install strategy's specs and the other manifests
// as canonical JSON, as the other readers do. Contents written before the install strategy
// was kept read with Install and Manifests nil.
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
	// encoding/json wrote them with its own escapes: canonical again, as the other readers
	// give them
	if err := c.canonicalizeInstall(); err != nil {
		return err
	}
	return c.checkManifests()
}

// canonicalize unpacks the contents and rewrites the CRDs as canonicalJSON, once
// (Builder.Catalog, before anyone reads them).
func (c *Contents) canonicalize() error {
	if c.packedInstall != nil {
		if err := c.unpackInstall(); err != nil {
			return err
		}
	}
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
