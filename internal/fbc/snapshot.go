package fbc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/odlm-render/odlm-render/internal/yamltext"
	"github.com/odlm-render/odlm-render/internal/yamlwrite"
)

// A CatalogSnapshot is this project's compact, deterministic copy of the
// part of a catalog the renderer reads: one YAML document
//
//	apiVersion: odlm-render.io/v1alpha1
//	kind: CatalogSnapshot
//	metadata: {name: …}
//	spec:
//	  source: {type, ref, digest, imageID}   # where it was extracted from
//	  packages:                               # sorted by name
//	  - name, defaultChannel,
//	    channels: [{name, head | headError, entries: [{name, replaces, skips, skipRange}]}],  # sorted; entries in catalog order
//	    bundles:  [{name, version, image, csvName, displayName, skipRange, minKubeVersion, installModes,
//	                providedAPIs, requiredAPIs, requiredPackages, properties, annotations,
//	                almExamples, relatedImages: [{name, image}], contents}],  # sorted by name
//	    deprecations: [{reference: {schema, name}, message}]
//
//	contents: {crds, permissions, clusterPermissions, deployments, ownedCRDs, requiredCRDs,
//	           objects: [{apiVersion, kind, name}],                   # sorted
//	           install: {csvName, annotations,
//	                     deployments: [{name, label, spec}], webhooks, apiServices},
//	           manifests}                                              # objects whole, same order
//
// minKubeVersion is the CSV's, as the catalog writes it (no field when it
// has none, as in a snapshot written before it was kept). almExamples is
// the parsed JSON array (a string only when the annotation does not parse,
// so that the error stays the same); annotations hold OLM's other CSV
// annotations (see snapshotAnnotation); properties the bundle
// properties no other field holds. contents, known for channel heads only,
// are what the bundle installs (see Contents and contentsRecord): a CRD, a
// manifest and a deployment's spec are each one line of canonical JSON;
// install holds the CSV's install strategy whole, with all of the CSV's
// annotations. A snapshot written before install was kept has neither
// install nor manifests, and still loads.
// relatedImages are the bundle's, as the catalog lists them (its order,
// images as given, digests kept; an empty name left out), written when the
// catalog was loaded with LoadOptions.RelatedImages (catalog extract does):
// [] when the catalog lists none, no field when they were not kept (as in a
// snapshot written before they were). Bundle.RelatedImagesKnown tells the two
// apart; a reader keeps them only with LoadOptions.RelatedImages.
// Icons, descriptions and the CSV metadata the renderer does not read are
// left out (but for install's annotations). Loading a snapshot (Load,
// Builder.AddPath…: the kind is detected) gives the same packages, channels,
// heads, bundles, examples, install modes, GVKs, related images and
// deprecations as the catalog it was written from, and writing it again
// gives the same bytes.
const (
	// SnapshotAPIVersion is the apiVersion of a CatalogSnapshot.
	SnapshotAPIVersion = "odlm-render.io/v1alpha1"
	// SnapshotKind is the kind of a CatalogSnapshot.
	SnapshotKind = "CatalogSnapshot"
)

// SnapshotSource says where a snapshot was extracted from.
type SnapshotSource struct {
	// Type is one of "fbc", "snapshot", "oci-layout", "docker-archive",
	// "registry".
	Type string `json:"type"`
	// Ref is the source as given: a path or an image reference.
	Ref string `json:"ref"`
	// Digest is the image manifest digest, when known.
	Digest string `json:"digest"`
	// ImageID is the digest of the image configuration, when known.
	ImageID string `json:"imageID"`
}

// SnapshotMeta is what a snapshot says besides its packages.
type SnapshotMeta struct {
	Name   string
	Source SnapshotSource
}

// WriteSnapshot writes catalog c as a CatalogSnapshot. The output depends
// only on the catalog's content and meta: not on file names, file order or
// document order of the blobs it was read from. Packages are written one at
// a time, bundle by bundle: a snapshot never exists whole in memory.
func WriteSnapshot(c *Catalog, w io.Writer, meta SnapshotMeta) error {
	if meta.Name == "" {
		meta.Name = "catalog"
	}
	yw := newSnapshotWriter()
	header := &snapshotHeaderRecord{APIVersion: SnapshotAPIVersion, Kind: SnapshotKind,
		Metadata: snapshotMetadataRecord{Name: meta.Name}, Spec: snapshotSpecRecord{Source: meta.Source}}
	if err := writeRecord(yw, header, 0); err != nil {
		return err
	}
	names := c.PackageNames()
	if len(names) == 0 {
		yw.Raw("  packages: []\n")
	} else {
		yw.Raw("  packages:\n")
	}
	if _, err := w.Write(yw.Bytes()); err != nil {
		return err
	}
	return writeInOrder(w, len(names), func(i int) ([]byte, error) {
		pw := newSnapshotWriter()
		if err := writeSnapshotPackage(pw, c.packages[names[i]]); err != nil {
			return nil, fmt.Errorf("package %q: %w", names[i], err)
		}
		return pw.Bytes(), nil
	})
}

// writeRecord writes the record struct rec points to at indent.
func writeRecord(yw *yamlwrite.Writer, rec any, indent int) error {
	v, err := recordValue(reflect.ValueOf(rec).Elem(), false)
	if err != nil {
		return err
	}
	return yw.Value(v, indent, false)
}

// writeInOrder writes the texts render gives for 0…n-1 in order; they are
// rendered by workers, each into its own buffer, and at most 2 per worker
// are held.
func writeInOrder(w io.Writer, n int, render func(i int) ([]byte, error)) error {
	workers := max(1, min(runtime.GOMAXPROCS(0), n))
	type rendered struct {
		buf []byte
		err error
	}
	slots := make([]chan rendered, n)
	next := make(chan int, n)
	for i := range slots {
		slots[i] = make(chan rendered, 1)
		next <- i
	}
	close(next)
	window := make(chan struct{}, 2*workers)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				// The slot first, then the text: the texts holding slots
				// are always the first ones not yet written, so the one
				// the writer waits for always gets rendered.
				select {
				case window <- struct{}{}:
				case <-quit:
					return
				}
				i, ok := <-next
				if !ok {
					return
				}
				buf, err := render(i)
				slots[i] <- rendered{buf, err}
			}
		})
	}
	defer wg.Wait()
	defer close(quit)
	for _, slot := range slots {
		r := <-slot
		<-window
		if r.err != nil {
			return r.err
		}
		if _, err := w.Write(r.buf); err != nil {
			return err
		}
	}
	return nil
}

// writeSnapshotPackage writes one spec.packages element: the package
// record's fields, its bundles a bundle at a time (a bundle's parsed
// alm-examples are the bulk of a snapshot), then the fields after them.
func writeSnapshotPackage(yw *yamlwrite.Writer, p *Package) error {
	rec := snapshotPackageRecord[*snapshotChannelRecord]{Name: p.Name, DefaultChannel: p.DefaultChannel,
		Deprecations: deprecationRecords(p.Deprecations)}
	for _, cn := range p.ChannelNames() {
		rec.Channels = append(rec.Channels, channelRecordOf(p.Channels[cn]))
	}
	v, err := recordValue(reflect.ValueOf(&rec).Elem(), false)
	if err != nil {
		return err
	}
	fields := v.(record)
	at := slices.IndexFunc(fields, func(f field) bool { return f.key == "bundles" })
	yw.Raw("  - ")
	if err := yw.Value(fields[:at], 4, false); err != nil {
		return err
	}
	if len(p.Bundles) > 0 {
		yw.Raw("    " + fields[at].key + ":\n")
	}
	for _, bn := range p.BundleNames() {
		br, err := bundleRecordOf(p.Bundles[bn])
		if err == nil {
			yw.Raw("    - ")
			err = writeRecord(yw, br, 6)
		}
		if err != nil {
			return fmt.Errorf("bundle %q: %w", bn, err)
		}
	}
	if len(p.Deprecations) > 0 {
		yw.Indent(4)
		return yw.Value(fields[at+1:], 4, false)
	}
	return nil
}

// channelRecordOf is the record of a channel: its entries and its head.
func channelRecordOf(ch *Channel) *snapshotChannelRecord {
	r := &snapshotChannelRecord{Name: ch.Name, Entries: ch.Entries}
	if head, err := ch.Head(); err == nil {
		r.Head = head
	} else {
		r.HeadError = headText("", err)
	}
	return r
}

func deprecationRecords(ds []Deprecation) []deprecationEntry {
	out := make([]deprecationEntry, len(ds))
	for i := range ds {
		out[i] = deprecationEntry{Reference: &ds[i].Reference, Message: ds[i].Message}
	}
	return out
}

// bundleRecordOf is the record of a bundle in a snapshot (the inverse of
// snapshotBundleRecord.bundle).
func bundleRecordOf(b *Bundle) (*snapshotBundleRecord, error) {
	r := &snapshotBundleRecord{Name: b.Name, Version: b.Version, Image: b.Image, DisplayName: b.DisplayName,
		SkipRange: b.SkipRange, MinKubeVersion: b.MinKubeVersion, ProvidedAPIs: b.ProvidedGVKs, RequiredAPIs: b.RequiredGVKs,
		RequiredPackages: b.RequiredPackages, Annotations: snapshotAnnotations(b.Annotations),
		RelatedImages: relatedImagesRecordOf(b)}
	if b.CSVName != b.Name {
		r.CSVName = b.CSVName
	}
	for _, m := range b.InstallModes {
		r.InstallModes = append(r.InstallModes, installMode{Type: string(m.Type), Supported: m.Supported})
	}
	for _, p := range b.Properties {
		r.Properties = append(r.Properties, snapshotProperty(p))
	}
	if text, ok := b.Annotations[almExamples]; ok {
		r.AlmExamples = examplesText{text: text, set: true}
		if ex, err := b.Examples(); err == nil && ex != nil {
			r.AlmExamples.list = make([]any, len(ex))
			for i, e := range ex {
				r.AlmExamples.list[i] = e
			}
		}
	}
	if b.Contents != nil {
		c, err := contentsRecordOf(b.Contents)
		if err != nil {
			return nil, fmt.Errorf("contents: %w", err)
		}
		r.Contents = c
	}
	return r, nil
}

// snapshotAnnotation tells the CSV annotations a snapshot keeps: OLM's
// (olm.*, operatorframework.io/*, operators.operatorframework.io/*, such as
// operatorframework.io/suggested-namespace), but the two written elsewhere
// (olm.skipRange, alm-examples) and the names of the tools that built the
// bundle. The catalog UI's (capabilities, categories, createdAt,
// description, features.operators.openshift.io/*…) are left out.
func snapshotAnnotation(k string) bool {
	switch k {
	case almExamples, "olm.skipRange", "operators.operatorframework.io/builder", "operators.operatorframework.io/project_layout":
		return false
	}
	return strings.HasPrefix(k, "olm.") || strings.HasPrefix(k, "operatorframework.io/") ||
		strings.HasPrefix(k, "operators.operatorframework.io/")
}

// jsonValue turns a decoded value into a JSON tree (the values of blobs
// handed to AddBlob may come from other decoders).
func jsonValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonValue(e)
		}
		return out
	case map[any]any:
		m, _ := asMap(x)
		return jsonValue(m)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	case nil, string, bool, json.Number:
		return x
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return json.Number(fmt.Sprint(x))
	case float32:
		return json.Number(strconv.FormatFloat(float64(x), 'g', -1, 32))
	case float64:
		return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
	}
	s, err := scalarString(v, "value")
	if err != nil {
		return fmt.Sprint(v)
	}
	return s
}

// Reading.

func isSnapshot(blob map[string]any) bool {
	k, _ := blob["kind"].(string)
	return k == SnapshotKind
}

// AddSnapshotObject adds a CatalogSnapshot the caller decoded: a document
// found among other inputs (the files of a render, the items of a KRM
// ResourceList). It is read as a snapshot file is: same checks, same
// errors. lineOf, when not nil, gives the line of a field path such as
// "spec.packages[2]" (manifest.Source.LineOf), so that an error in a
// package points at that package, as it does when the file is read;
// without it, errors point at the document.
func (b *Builder) AddSnapshotObject(src Source, obj map[string]any, lineOf func(path string) int) error {
	if b.done {
		return errFinished
	}
	if obj == nil {
		return &Error{Source: src, Err: errors.New("empty " + SnapshotKind)}
	}
	items, err := b.dec.decodeSnapshotObject(src, obj, packageSources(src, lineOf))
	if err != nil {
		return err
	}
	b.insertAll(items)
	return nil
}

// packageSources returns where each spec.packages element of a decoded
// snapshot is: the document's source, at the element's line when lineOf
// (which may be nil) knows it.
func packageSources(doc Source, lineOf func(path string) int) func(i int) Source {
	return func(i int) Source {
		src := doc
		if lineOf != nil {
			if l := lineOf(fmt.Sprintf("spec.packages[%d]", i)); l > 0 {
				src.Line = l
			}
		}
		return src
	}
}

// decodeSnapshotObject reads a whole CatalogSnapshot (from JSON, from
// AddBlob or AddSnapshotObject, or a YAML document whose layout the
// splitter did not cut). pkgSrc gives the source of the i-th package (see
// packageSources). A snapshot cut by the splitter is read by the same
// checkSnapshotHeader and decodeSnapshotPackage, a chunk at a time.
func (d *decoder) decodeSnapshotObject(src Source, blob map[string]any, pkgSrc func(i int) Source) ([]item, error) {
	if err := checkSnapshotHeader(src, blob, false); err != nil {
		return nil, err
	}
	spec, _ := optMap(blob, "spec")
	pkgs, err := listOfMaps(spec, "packages")
	if err != nil {
		return nil, snapErr(src, "spec: %w", err)
	}
	var out []item
	for i, p := range pkgs {
		items, err := d.decodeSnapshotPackage(pkgSrc(i), p)
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	return out, nil
}

func snapErr(src Source, format string, args ...any) error {
	return &Error{Source: src, Err: fmt.Errorf(SnapshotKind+": "+format, args...)}
}

// checkSnapshotHeader checks everything but spec.packages; streamed says
// the packages were cut out of the document.
func checkSnapshotHeader(src Source, m map[string]any, streamed bool) error {
	if err := knownFields(m, snapshotHeaderRecord{}); err != nil {
		return snapErr(src, "%w", err)
	}
	if av, _ := m["apiVersion"].(string); av != SnapshotAPIVersion {
		return snapErr(src, "apiVersion %q is not supported (this version reads %s)", fmt.Sprint(m["apiVersion"]), SnapshotAPIVersion)
	}
	if k, _ := m["kind"].(string); k != SnapshotKind {
		return snapErr(src, "kind %q is not %s", fmt.Sprint(m["kind"]), SnapshotKind)
	}
	md, err := optMap(m, "metadata")
	if err == nil {
		err = knownFields(md, snapshotMetadataRecord{})
	}
	if err != nil {
		return snapErr(src, "metadata: %w", err)
	}
	spec, err := optMap(m, "spec")
	if err == nil && spec == nil && !streamed { // streamed: spec held the packages only
		err = errors.New(`field "spec" is missing`)
	}
	if err == nil {
		keys := recordKeys(snapshotSpecRecord{})
		if streamed { // the packages were cut out of it
			keys = slices.DeleteFunc(keys, func(k string) bool { return k == "packages" })
		}
		err = onlyKeys(spec, keys...)
	}
	if err != nil {
		return snapErr(src, "spec: %w", err)
	}
	source, err := optMap(spec, "source")
	if err == nil {
		err = knownFields(source, SnapshotSource{})
	}
	if err != nil {
		return snapErr(src, "spec.source: %w", err)
	}
	return nil
}

func onlyKeys(m map[string]any, keys ...string) error {
	var unknown []string
	for k := range m {
		if !slices.Contains(keys, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return fmt.Errorf("unknown field %q (fields: %s)", unknown[0], joinOrNone(keys))
}

// decodeSnapshotPackage reads one spec.packages element.
func (d *decoder) decodeSnapshotPackage(src Source, m map[string]any) ([]item, error) {
	name, err := reqString(m, "name")
	if err != nil {
		return nil, snapErr(src, "package: %w", err)
	}
	if !d.keeps(name) {
		return []item{{kind: itemSkipped, src: src, pkg: name}}, nil
	}
	var r snapshotPackageRecord[map[string]any]
	if err := decodeSnapshotRecord(m, &r); err != nil {
		return nil, &Error{Source: src, Package: name, Err: fmt.Errorf(SnapshotKind+": %w", err)}
	}
	out := []item{{kind: itemPackage, src: src, pkg: name, defaultChannel: r.DefaultChannel}}
	for _, cm := range r.Channels {
		ch, err := decodeSnapshotChannel(src, name, cm)
		if err != nil {
			return nil, err
		}
		out = append(out, item{kind: itemChannel, src: src, pkg: name, channel: ch})
	}
	for _, bm := range r.Bundles {
		bu, err := decodeSnapshotBundle(src, name, bm, d.relatedImages)
		if err != nil {
			return nil, err
		}
		out = append(out, item{kind: itemBundle, src: src, pkg: name, bundle: bu})
	}
	if v, ok := m["deprecations"]; ok {
		ds, err := decodeDeprecations(src, name, map[string]any{"entries": v})
		if err != nil {
			return nil, err
		}
		out = append(out, item{kind: itemDeprecations, src: src, pkg: name, deprecations: ds})
	}
	return out, nil
}

// decodeSnapshotChannel reads a channel of a snapshot package: an olm.channel's name and
// entries, and the head recorded, which must be the entries' head.
func decodeSnapshotChannel(src Source, pkg string, m map[string]any) (*Channel, error) {
	var r snapshotChannelRecord
	if err := decodeSnapshotRecord(m, &r); err != nil {
		return nil, &Error{Source: src, Package: pkg, Err: fmt.Errorf(SnapshotKind+": channel: %w", err)}
	}
	ch, err := decodeChannel(src, pkg, m)
	if err != nil {
		return nil, err
	}
	fail := func(err error) error { return &Error{Source: src, Package: pkg, Channel: ch.Name, Err: err} }
	for _, e := range mustList(m, "entries") {
		if err := knownFields(e, ChannelEntry{}); err != nil {
			return nil, fail(fmt.Errorf(SnapshotKind+": entry: %w", err))
		}
	}
	got, herr := ch.Head()
	if (r.Head != "") != (herr == nil) || (r.Head != "" && r.Head != got) {
		return nil, fail(fmt.Errorf(SnapshotKind+": the head recorded (%q) is not the head of the entries (%s)", r.Head, headText(got, herr)))
	}
	return ch, nil
}

func headText(head string, err error) string {
	if err != nil {
		var ce *Error
		if errors.As(err, &ce) {
			return ce.Err.Error()
		}
		return err.Error()
	}
	return strconv.Quote(head)
}

func mustList(m map[string]any, key string) []map[string]any {
	l, _ := listOfMaps(m, key)
	return l
}

// decodeSnapshotBundle reads a bundle of a snapshot package; relatedImages keeps its related
// images (LoadOptions.RelatedImages), which are checked either way.
func decodeSnapshotBundle(src Source, pkg string, m map[string]any, relatedImages bool) (*Bundle, error) {
	name, err := reqString(m, "name")
	if err != nil {
		return nil, &Error{Source: src, Package: pkg, Err: fmt.Errorf(SnapshotKind+": bundle: %w", err)}
	}
	var r snapshotBundleRecord
	err = decodeSnapshotRecord(m, &r)
	var b *Bundle
	if err == nil {
		b, err = r.bundle(src, pkg, relatedImages)
	}
	if err != nil {
		return nil, &Error{Source: src, Package: pkg, Bundle: name, Err: fmt.Errorf(SnapshotKind+": %w", err)}
	}
	return b, nil
}

// snapshotSplitter cuts the spec.packages of a CatalogSnapshot written by
// WriteSnapshot into one chunk per package ("  - " starts one, its lines
// are indented by 4), so that a snapshot streams like an FBC: a filtered
// load parses only the packages it keeps. Every other line of the document
// is its header, checked at the end.
type snapshotSplitter struct {
	s          *yamlSplitter
	index      int
	header     []byte
	headerLine int
	trailer    []byte

	item     []byte
	itemLine int
	inItem   bool
	started  bool   // the first element was seen
	pending  []byte // "  packages:" and the blanks and comments after it, until then
	done     bool   // past spec.packages
	peek     yamlPeek
}

// notOurs tells, at the first line with content after "  packages:",
// whether the list is written some other way (deeper, or flow style).
func (sn *snapshotSplitter) notOurs(content []byte) bool {
	if sn.started || sn.done {
		return false
	}
	if yamltext.IsBlank(content) || yamltext.IsComment(content) {
		sn.pending = append(append(sn.pending, content...), '\n')
		return false
	}
	sn.started = true
	n := yamltext.Indent(content)
	switch {
	case n == 2 && yamltext.IsListEntry(content, 2):
		return false
	case n < 2 || (n == 2 && content[2] != '-'):
		return false // no elements: the header goes on
	}
	return true
}

func newSnapshotSplitter(s *yamlSplitter, start int) *snapshotSplitter {
	return &snapshotSplitter{s: s, index: s.index, header: append([]byte(nil), s.cur[:start]...), headerLine: s.curLine}
}

func (sn *snapshotSplitter) line(line []byte, num int) error {
	if sn.done {
		sn.trailer = append(sn.trailer, line...)
		return nil
	}
	content := yamltext.TrimEOL(line)
	switch {
	case yamltext.Indent(content) == 2 && yamltext.IsListEntry(content, 2):
		if err := sn.flushItem(); err != nil {
			return err
		}
		sn.inItem, sn.itemLine = true, num
		sn.peek = yamlPeek{}
		sn.appendLine(line, 4)
	case len(bytes.TrimSpace(content)) == 0:
		if sn.inItem {
			sn.item = append(sn.item, '\n')
		}
	case bytes.HasPrefix(content, []byte("    ")) && sn.inItem:
		sn.appendLine(line, 4)
	case yamltext.IsComment(content):
		if sn.inItem {
			sn.appendLine(line, min(4, yamltext.Indent(content)))
		}
	default:
		if err := sn.flushItem(); err != nil {
			return err
		}
		sn.done = true
		sn.trailer = append(sn.trailer, line...)
	}
	return nil
}

func (sn *snapshotSplitter) appendLine(line []byte, cut int) {
	content := yamltext.TrimEOL(line)
	cut = min(cut, len(content)) // "  -" alone: its newline stays
	d := line[cut:]
	sn.item = append(sn.item, d...)
	sn.peek.line(yamltext.TrimEOL(d))
}

func (sn *snapshotSplitter) flushItem() error {
	if !sn.inItem {
		return nil
	}
	sn.inItem = false
	p := sn.peek.result()
	c := &chunk{src: Source{File: sn.s.name, Index: sn.index, Line: sn.itemLine}, data: sn.item, peek: p, snapshotItem: true}
	sn.item = nil
	return sn.s.emit(c)
}
