package fbc

import (
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/odlm-render/odlm-render/internal/fileread"
)

// Limits on the pieces of a catalog file. Catalog files come from images and folders of
// anyone (an Argo CD plugin serves every tenant), and the splitters hold one document or
// value, and one line, in memory: without a cap a small gzip layer unpacks to a value of
// gigabytes. The largest real blobs are olm.bundle blobs carrying their manifests
// base64-encoded (olm.bundle.object): a few MB (each manifest is bounded in practice by
// etcd's 1.5 MiB request size), so the caps leave room many times over. The whole stream is not capped: it is read once,
// a document at a time.
const (
	// MaxBlobSize caps one document of a YAML catalog file or one value of a JSON one.
	MaxBlobSize = 64 << 20
	// MaxLineSize caps one line of a YAML catalog file. It is no smaller than
	// MaxBlobSize: JSON written on one line is YAML too, a whole blob on a line.
	MaxLineSize = MaxBlobSize
)

// ErrTooLarge is the cause of the errors about a document, value or line over
// MaxBlobSize or MaxLineSize (errors.Is).
var ErrTooLarge = errors.New("over a size limit")

// splitLimits are the caps a splitter applies; tests use small ones.
type splitLimits struct {
	blob, line int
}

var defaultSplitLimits = splitLimits{blob: MaxBlobSize, line: MaxLineSize}

// sizeText writes a limit for an error message: "64 MiB", "1000 bytes".
func sizeText(n int) string { return fileread.ByteSize(int64(n)) }

// Stats counts what a Builder has read so far. Builder.Stats may be called
// from any goroutine while the Builder works, for progress reports.
type Stats struct {
	// BytesRead counts the catalog bytes read (files, streams).
	BytesRead int64
	// Packages and Bundles count the olm.package and olm.bundle blobs
	// decoded and kept so far.
	Packages, Bundles int64
}

type stats struct {
	bytes, packages, bundles atomic.Int64
}

// Stats returns the counters; safe to call concurrently with the Builder's
// methods.
func (b *Builder) Stats() Stats {
	return Stats{BytesRead: b.stats.bytes.Load(), Packages: b.stats.packages.Load(), Bundles: b.stats.bundles.Load()}
}

// AddReader adds the blobs of a stream: a catalog file's content, or a
// CatalogSnapshot. name is used in errors and its extension (.yaml, .yml,
// .json) chooses the decoder. The stream is read once, in blocks; only the
// document being decoded (a few of them with several CPUs) is held.
func (b *Builder) AddReader(name string, r io.Reader) error {
	if b.done {
		return errFinished
	}
	p := b.newPipeline()
	return p.finish(p.stream(name, r))
}

// newPipeline returns a pipeline that inserts into the Builder and stops at
// the first error.
func (b *Builder) newPipeline() *pipeline {
	return &pipeline{b: b,
		sink: func(_ *chunk, items []item) {
			for _, it := range items {
				b.insert(it)
			}
		},
		fail: func(*chunk, error) bool { return false },
	}
}

// parallelAfter is how many bytes a pipeline decodes on the calling
// goroutine before it starts workers: small inputs are not worth them.
const parallelAfter = 256 << 10

var errStopped = errors.New("catalog: stream stopped after an error")

// pipeline decodes the chunks of one or more streams on worker goroutines
// and hands their items to sink in document order, from one goroutine at
// a time. An error goes to fail, which says whether to go on.
type pipeline struct {
	b     *Builder
	sink  func(c *chunk, items []item)
	fail  func(c *chunk, err error) bool
	bytes int

	jobs, order chan *job
	inFlight    *byteBudget // text of the chunks handed to workers
	workers     sync.WaitGroup
	merged      chan struct{}
	stop        atomic.Bool
	err         error // the error that stopped the pipeline; read only after finish
}

type job struct {
	c     *chunk
	held  int // of the pipeline's inFlight budget
	items []item
	err   error
	done  chan struct{}
}

// stream cuts a stream into the pipeline. Its error is one of reading or
// cutting (errStopped once the pipeline stopped).
func (p *pipeline) stream(name string, r io.Reader) error { return p.streamOwned(name, r, nil) }

// streamOwned is stream with the chunks marked as owner's.
func (p *pipeline) streamOwned(name string, r io.Reader, owner *treeFile) error {
	var split func(string, io.Reader, func(*chunk) error, func(int)) error
	switch formatOf(name) {
	case "yaml":
		split = splitYAML
	case "json":
		split = splitJSON
	default:
		return errNotCatalogFile(name)
	}
	emit := p.emit
	if owner != nil {
		emit = func(c *chunk) error {
			c.owner = owner
			return p.emit(c)
		}
	}
	return split(name, r, emit, func(n int) { p.b.stats.bytes.Add(int64(n)) })
}

func (p *pipeline) count(items []item) {
	for _, it := range items {
		switch it.kind {
		case itemBundle:
			p.b.stats.bundles.Add(1)
		case itemPackage:
			p.b.stats.packages.Add(1)
		}
	}
}

// emit takes a chunk whose data may be borrowed: it is valid only until emit
// returns.
func (p *pipeline) emit(c *chunk) error {
	if p.stop.Load() {
		return errStopped
	}
	if items := p.b.dec.decide(c); items != nil {
		c.pre, c.data = items, nil
	}
	if p.jobs == nil && c.pre == nil {
		p.bytes += len(c.data)
		if p.bytes > parallelAfter && runtime.GOMAXPROCS(0) > 1 {
			p.start()
		}
	}
	if p.jobs == nil {
		items, err := p.b.dec.work(c)
		c.data = nil
		if err != nil {
			if !p.fail(c, err) {
				p.err = err
				p.stop.Store(true)
				return errStopped
			}
			return nil
		}
		p.count(items)
		p.sink(c, items)
		return nil
	}
	j := &job{c: c, done: make(chan struct{})}
	if c.pre != nil {
		j.items = c.pre
		close(j.done)
	} else {
		j.held = p.inFlight.acquire(len(c.data))
		c.data = append([]byte(nil), c.data...) // the splitter reuses its buffer
		p.jobs <- j
	}
	p.order <- j
	return nil
}

func (p *pipeline) start() {
	n := runtime.GOMAXPROCS(0)
	p.jobs = make(chan *job, n)
	p.order = make(chan *job, 2*n)
	p.merged = make(chan struct{})
	p.inFlight = newByteBudget(maxInFlight)
	for range n {
		p.workers.Add(1)
		go func() {
			defer p.workers.Done()
			for j := range p.jobs {
				if !p.stop.Load() {
					j.items, j.err = p.b.dec.work(j.c)
					p.count(j.items)
				}
				j.c.data = nil
				p.inFlight.release(j.held)
				close(j.done)
			}
		}()
	}
	go func() {
		defer close(p.merged)
		for j := range p.order {
			<-j.done
			switch {
			case p.stop.Load():
			case j.err != nil:
				if !p.fail(j.c, j.err) {
					p.err = j.err
					p.stop.Store(true)
				}
			default:
				p.sink(j.c, j.items)
			}
		}
	}()
}

// finish waits for the workers and returns the error that stopped the
// pipeline, else err (an error of what fed it, which came later).
func (p *pipeline) finish(err error) error {
	if p.jobs != nil {
		close(p.jobs)
		close(p.order)
		p.workers.Wait()
		<-p.merged
		p.jobs = nil
	}
	if p.err != nil {
		return p.err
	}
	if errors.Is(err, errStopped) {
		return nil
	}
	return err
}

// maxInFlight caps the text of the chunks a pipeline's workers hold (queued or being
// decoded): many small blobs decode at once, but blobs near MaxBlobSize one at a time,
// since each may take several times its size once decoded. Real catalogs' blobs are far
// smaller: the cap never waits on them.
const maxInFlight = MaxBlobSize

// byteBudget hands out bytes of a fixed budget, waiting until enough are free.
type byteBudget struct {
	mu   sync.Mutex
	cond sync.Cond
	size int
	free int
}

func newByteBudget(size int) *byteBudget {
	b := &byteBudget{size: size, free: size}
	b.cond.L = &b.mu
	return b
}

// acquire takes n bytes (all of the budget when n is more), waiting for them; it returns
// what it took, for release.
func (b *byteBudget) acquire(n int) int {
	n = min(n, b.size)
	b.mu.Lock()
	for b.free < n {
		b.cond.Wait()
	}
	b.free -= n
	b.mu.Unlock()
	return n
}

func (b *byteBudget) release(n int) {
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
	b.cond.Broadcast()
}
