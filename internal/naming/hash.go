package naming

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// hashLen is the number of hex characters ODLM keeps from a SHA-256.
const hashLen = 14

// RequestCRName is the name ODLM gives to the custom resource an
// OperandRequest creates from its index-th resource entry:
// "<requestName>-<h>", h being the first 14 hex characters of the SHA-256
// of apiVersion + kind + the decimal index.
func RequestCRName(requestName, apiVersion, kind string, index int) string {
	return requestName + "-" + shortHash([]byte(apiVersion+kind+strconv.Itoa(index)))
}

// DataHash returns the first 14 hex characters of the SHA-256 of v's
// encoding/json encoding, as ODLM computes it after decoding v into Go
// values: every json.Number is first converted to float64 (so 1.0 hashes
// like 1, and 12345678901234567890 like 12345678901234567000). It fails
// for a number that is not JSON number text or is out of float64 range, and
// for values encoding/json cannot encode.
func DataHash(v any) (string, error) {
	data, err := canonicalJSON(make([]byte, 0, 512), v)
	if err != nil {
		return "", err
	}
	return shortHash(data), nil
}

// TextHash is ODLM's hash of a string's raw bytes (the Route host hash, docs/semantics.md, OperandConfig resources):
// the first 14 hex digits of its SHA-256, not of its JSON encoding.
func TextHash(s string) string { return shortHash([]byte(s)) }

func shortHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])[:hashLen]
}

func atPath(path string) string {
	if path == "" {
		return ""
	}
	return path + ": "
}
