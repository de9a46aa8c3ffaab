package image

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/odlm-render/odlm-render/internal/fileread"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// A cache entry holds the contents read from one image, bound to the image's digest: the file
// records the digest and the SHA-256 of the contents as written, and an entry is used only
// when both match (the digest asked for, the contents read back). An entry cut short, edited,
// written by an older odlm-render, or copied under another digest's name is a miss: the image
// is read again (with a warning) and the entry written anew. The checksum is no signature:
// whoever may write the cache folder may write a matching entry, so the folder is created
// readable and writable by its owner only, and must not be shared with anyone less trusted.

// cacheVersion is the format of the entries.
const cacheVersion = 2 // 2: contents keep the install strategy and the other manifests whole

type cacheEntry struct {
	Version  int             `json:"version"`
	Digest   string          `json:"digest"`
	SHA256   string          `json:"sha256"`
	Contents json.RawMessage `json:"contents"`
}

// cacheFile is where the contents of an image digest are kept.
func (p *BundlePuller) cacheFile(digest string) string {
	if p.CacheDir == "" || !strings.HasPrefix(digest, "sha256:") {
		return ""
	}
	return filepath.Join(p.CacheDir, "sha256-"+strings.TrimPrefix(digest, "sha256:")+".json")
}

// cached gives the contents of a digest from its cache entry, if there is a good one.
func (p *BundlePuller) cached(digest string) (*catalog.Contents, bool) {
	f := p.cacheFile(digest)
	if f == "" {
		return nil, false
	}
	c, err := p.readEntry(f, digest)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) && p.Warn != nil {
			p.Warn(fmt.Sprintf("%s: %v; reading the image again", f, err))
		}
		return nil, false
	}
	return c, true
}

// readEntry reads and checks a cache entry. It is opened as every file is (fileread.Open: a
// regular file, without blocking, so that a FIFO planted there cannot hang the pull), and used
// only when no other user may have written it.
func (p *BundlePuller) readEntry(f, digest string) (*catalog.Contents, error) {
	file, err := fileread.Open(f)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if err := ownedAlone(file, "cache entry"); err != nil {
		return nil, err
	}
	// the contents are about the size of the manifests they come from
	limit := 2 * p.Limits.or(DefaultBundleLimits).MaxReadBytes
	data, err := io.ReadAll(io.LimitReader(file, limit+1))
	switch {
	case err != nil:
		return nil, err
	case int64(len(data)) > limit:
		return nil, fmt.Errorf("a cache entry larger than %s", quantity(limit, true))
	}
	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("unreadable cache entry: %w", err)
	}
	switch {
	case e.Version != cacheVersion:
		return nil, fmt.Errorf("a cache entry of format %d, not %d", e.Version, cacheVersion)
	case e.Digest != digest:
		return nil, fmt.Errorf("the cache entry is that of image %q", e.Digest)
	case sha256Hex(e.Contents) != e.SHA256:
		return nil, errors.New("the cache entry does not match its checksum (changed since it was written)")
	}
	var c catalog.Contents
	if err := json.Unmarshal(e.Contents, &c); err != nil {
		return nil, fmt.Errorf("unreadable cache entry: %w", err)
	}
	return &c, nil
}

// CheckCacheDir refuses a cache folder another user could write a matching entry into: one
// writable by its group or by others, or owned by another user. A missing folder is fine (it
// is created readable and writable by its owner only).
func CheckCacheDir(dir string) error {
	if dir == "" {
		return nil
	}
	f, err := os.Open(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return ownedAlone(f, "cache folder")
}

// ownedAlone refuses a file or folder (what) that users other than the one running odlm-render
// may write: the checksum of an entry is no signature, so whoever may write there may plant
// an entry that passes it.
func ownedAlone(f *os.File, what string) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s %s is writable by other users (mode %s): a planted entry would pass its checksum; run chmod go-w %s, or give --cache-dir a folder of your own", what, f.Name(), fi.Mode().Perm(), f.Name())
	}
	if uid, ok := ownerOf(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("%s %s belongs to another user (uid %d): a planted entry would pass its checksum; give --cache-dir a folder of your own", what, f.Name(), uid)
	}
	return nil
}

// store writes the contents read from an image as its digest's entry, atomically.
func (p *BundlePuller) store(digest string, c *catalog.Contents) error {
	f := p.cacheFile(digest)
	if f == "" {
		return nil
	}
	contents, err := json.Marshal(c)
	if err != nil {
		return err
	}
	// written by hand, so that the checksum is of the bytes in the file
	var data bytes.Buffer
	fmt.Fprintf(&data, `{"version":%d,"digest":%q,"sha256":%q,"contents":`, cacheVersion, digest, sha256Hex(contents))
	data.Write(contents)
	data.WriteString("}\n")
	if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(f), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data.Bytes())
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), f)
}
