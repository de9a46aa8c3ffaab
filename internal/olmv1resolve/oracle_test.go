package olmv1resolve_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/olmv1resolve"
	"github.com/odlm-render/odlm-render/internal/refdata"
	"github.com/odlm-render/odlm-render/pkg/catalog"
)

// oracleDir is the module of the oracle: operator-controller v1.11.0's own resolver, catalog
// client and catalogd storage handler (see its go.mod).
const oracleDir = "oracle"

var (
	oracleOnce sync.Once
	oracleBin  string
	oracleErr  error
)

// oracle builds the oracle once (cached in .cache/olmv1-oracle/<hash of its sources>), or
// skips t when it cannot be built here (fails it with ODLM_RENDER_REQUIRE_TOOLS=1).
func oracle(t *testing.T) string {
	t.Helper()
	oracleOnce.Do(func() {
		h := sha256.New()
		for _, f := range []string{"go.mod", "go.sum", "main.go"} {
			b, err := os.ReadFile(filepath.Join(oracleDir, f))
			if err != nil {
				oracleErr = err
				return
			}
			h.Write(b)
		}
		bin := filepath.Join(refdata.RepoRoot(), ".cache", "olmv1-oracle", hex.EncodeToString(h.Sum(nil))[:16], "oracle")
		if _, err := os.Stat(bin); err == nil {
			oracleBin = bin
			return
		}
		abs, err := filepath.Abs(oracleDir)
		if err != nil {
			oracleErr = err
			return
		}
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Dir = abs
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			oracleErr = errors.New("building operator-controller's resolver: " + err.Error() + "\n" + string(out))
			return
		}
		oracleBin = bin
	})
	if oracleErr != nil {
		if os.Getenv(refdata.EnvRequire) == "1" {
			t.Fatal(oracleErr)
		}
		t.Skip(oracleErr)
	}
	return oracleBin
}

// oracleCatalog is a catalog folder as the oracle serves it, with its ClusterCatalog's fields.
type oracleCatalog struct {
	Name        string `json:"name"`
	Priority    int    `json:"priority"`
	Unavailable bool   `json:"unavailable"`
	Dir         string `json:"dir"`
}

type oracleInstalled struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type oracleRequest struct {
	Package       string           `json:"package"`
	Channels      []string         `json:"channels,omitempty"`
	Version       string           `json:"version,omitempty"`
	SelfCertified bool             `json:"selfCertified,omitempty"`
	Installed     *oracleInstalled `json:"installed,omitempty"`
}

type oracleAnswer struct {
	Bundle string `json:"bundle"`
	Error  string `json:"error"`
}

// ask runs the oracle on catalogs for each request.
func ask(t *testing.T, catalogs []oracleCatalog, reqs []oracleRequest) []oracleAnswer {
	t.Helper()
	in, err := json.Marshal(map[string]any{"catalogs": catalogs, "requests": reqs})
	require.NoError(t, err)
	cmd := exec.Command(oracle(t))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	var answers []oracleAnswer
	require.NoError(t, json.Unmarshal(out, &answers))
	require.Len(t, answers, len(reqs))
	return answers
}

// compare asks both: Resolve's bundle or error text must be the oracle's, for every request.
func compare(t *testing.T, catalogs []oracleCatalog, reqs []oracleRequest) {
	t.Helper()
	var cats []olmv1resolve.Catalog
	for _, c := range catalogs {
		content, err := catalog.Load(c.Dir)
		require.NoError(t, err)
		cats = append(cats, olmv1resolve.Catalog{Name: c.Name, Priority: c.Priority, Unavailable: c.Unavailable, Content: content})
	}
	answers := ask(t, catalogs, reqs)
	for i, req := range reqs {
		r := olmv1resolve.Request{Package: req.Package, Channels: req.Channels, Version: req.Version, SelfCertified: req.SelfCertified}
		if req.Installed != nil {
			r.Installed = &olmv1resolve.Installed{Name: req.Installed.Name, Version: req.Installed.Version}
		}
		got, err := olmv1resolve.Resolve(cats, r)
		want := answers[i]
		desc, _ := json.Marshal(req)
		if want.Error != "" {
			if assert.Error(t, err, "%s: operator-controller: %s", desc, want.Error) {
				assert.Equal(t, want.Error, err.Error(), "%s", desc)
			}
			continue
		}
		if assert.NoError(t, err, "%s: operator-controller installs %s", desc, want.Bundle) {
			assert.Equal(t, want.Bundle, got.Bundle.Name, "%s", desc)
		}
	}
}

// writeCatalog writes an FBC text into a folder of its own.
func writeCatalog(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog.yaml"), []byte(text), 0o644))
	return dir
}
