// Package version owns the build's version string, set by the linker
// (-X github.com/odlm-render/odlm-render/internal/version.Version=...) for both binaries.
package version

// Version is the release this build is, "dev" when built without the Makefile.
var Version = "dev"
