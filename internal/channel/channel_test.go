package channel_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/odlm-render/odlm-render/internal/channel"
)

func TestFindSemantic(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 100000)
	for _, tc := range []struct {
		name, in, want string
		valid          bool
	}{
		{name: "stable", in: "stable", want: "v0.0.0", valid: true},
		{name: "alpha", in: "alpha", want: "v0.0.0", valid: true},
		{name: "no version in compound name", in: "singlenamespace-alpha", want: "v0.0.0", valid: true},
		{name: "empty", in: "", want: "v0.0.0", valid: true},
		{name: "v major.minor", in: "v4.0", want: "v4.0", valid: true},
		{name: "major.minor without v", in: "4.0", want: "4.0", valid: false},
		{name: "year", in: "release-2023", want: "2023", valid: false},
		{name: "full version", in: "v1.2.3", want: "v1.2.3", valid: true},
		{name: "suffix version", in: "stable-v2.0", want: "v2.0", valid: true},
		{name: "major only", in: "v4", want: "v4", valid: true},
		{name: "fourth component cut", in: "v1.2.3.4", want: "v1.2.3", valid: true},
		{name: "prerelease cut", in: "v1.2.3-rc1", want: "v1.2.3", valid: true},
		{name: "first of two", in: "v1.0-to-v2.0", want: "v1.0", valid: true},
		{name: "word char after patch backs off", in: "v1.2.3x", want: "v1.2", valid: true},
		{name: "digits glued to letters", in: "abc1", want: "v0.0.0", valid: true},
		{name: "underscore is a word char", in: "stable_v1", want: "v0.0.0", valid: true},
		{name: "uppercase V glues to digits", in: "V1.2", want: "2", valid: false},
		{name: "unicode letter is a boundary", in: "é1.5", want: "1.5", valid: false},
		{name: "unicode around version", in: "稳定-v3.1-版", want: "v3.1", valid: true},
		{name: "very long without version", in: long, want: "v0.0.0", valid: true},
		{name: "very long with version at end", in: long + "-v9.8.7", want: "v9.8.7", valid: true},
		{name: "leading zeros", in: "v01.2", want: "v01.2", valid: false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, channel.FindSemantic(tc.in))
			assert.Equal(t, tc.valid, channel.Valid(tc.in))
		})
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, a, b string
		want       int
	}{
		{name: "minor", a: "v1.0", b: "v1.1", want: -1},
		{name: "shorthand equals full", a: "v4.0", b: "stable-v4.0.0", want: 0},
		{name: "major shorthand", a: "v4", b: "v4.0.0", want: 0},
		{name: "greater", a: "v10.0", b: "v9.9", want: 1},
		{name: "non-version is v0.0.0", a: "stable", b: "v0.0.0", want: 0},
		{name: "invalid below v0.0.0", a: "4.0", b: "alpha", want: -1},
		{name: "invalids equal", a: "4.0", b: "release-2023", want: 0},
		{name: "empty strings", a: "", b: "", want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tc.want, channel.Compare(tc.a, tc.b))
			assert.Equal(t, -tc.want, channel.Compare(tc.b, tc.a))
		})
	}
}

func TestMin(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		channels []string
		want     string
	}{
		{name: "empty", channels: nil, want: ""},
		{name: "single", channels: []string{"v3.0"}, want: "v3.0"},
		{name: "smallest", channels: []string{"v4.0", "v3.23", "v4.2"}, want: "v3.23"},
		{name: "non-version counts as v0.0.0", channels: []string{"v1.0", "stable"}, want: "stable"},
		{name: "tie first wins", channels: []string{"stable-v2.0", "v2.0", "v2"}, want: "stable-v2.0"},
		{name: "non-version tie first wins", channels: []string{"v1.0", "beta", "alpha"}, want: "beta"},
		{name: "invalid below everything", channels: []string{"stable", "4.0", "v0.1"}, want: "4.0"},
		{name: "invalids tie first wins", channels: []string{"v1", "release-2023", "4.0"}, want: "release-2023"},
		{name: "empty string channel", channels: []string{"v1.0", ""}, want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := append([]string(nil), tc.channels...)
			assert.Equal(t, tc.want, channel.Min(tc.channels))
			assert.Equal(t, in, tc.channels)
		})
	}
}

func TestPickFallback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		catalog   []string
		fallbacks []string
		want      string
		ok        bool
	}{
		{name: "highest present wins", catalog: []string{"v3.0", "v3.1", "v4.0"}, fallbacks: []string{"v3.0", "v4.0", "v3.1"}, want: "v4.0", ok: true},
		{name: "skips absent higher", catalog: []string{"v3.0", "v3.1"}, fallbacks: []string{"v3.0", "v4.0", "v3.1"}, want: "v3.1", ok: true},
		{name: "none present", catalog: []string{"v1.0"}, fallbacks: []string{"v2.0", "v3.0"}, ok: false},
		{name: "pruned form matches literally", catalog: []string{"v2.0"}, fallbacks: []string{"stable-v2.0"}, want: "stable-v2.0", ok: true},
		{name: "pruned form does not match original name", catalog: []string{"stable-v2.0"}, fallbacks: []string{"stable-v2.0"}, ok: false},
		{name: "non-version fallback matches only v0.0.0", catalog: []string{"stable"}, fallbacks: []string{"stable"}, ok: false},
		{name: "non-version fallback and v0.0.0 channel", catalog: []string{"v0.0.0"}, fallbacks: []string{"stable"}, want: "stable", ok: true},
		{name: "ties keep list order", catalog: []string{"v2.0"}, fallbacks: []string{"v1.0", "fast-v2.0", "v2.0"}, want: "fast-v2.0", ok: true},
		{name: "invalid pruned form last", catalog: []string{"4.0", "v1.0"}, fallbacks: []string{"4.0", "v1.0"}, want: "v1.0", ok: true},
		{name: "invalid pruned form can match", catalog: []string{"4.0"}, fallbacks: []string{"4.0", "v1.0"}, want: "4.0", ok: true},
		{name: "empty fallbacks", catalog: []string{"v1.0"}, fallbacks: nil, ok: false},
		{name: "empty catalog", catalog: nil, fallbacks: []string{"v1.0"}, ok: false},
		{name: "empty fallback string", catalog: []string{"v0.0.0"}, fallbacks: []string{""}, want: "", ok: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fallbacks := append([]string(nil), tc.fallbacks...)
			got, ok := channel.PickFallback(tc.catalog, tc.fallbacks)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, fallbacks, tc.fallbacks, "fallbacks reordered")
		})
	}
}

func TestODLMFindMinSemver(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cur  string
		list []string
		want string
	}{
		{name: "empty list", cur: "v1.0", list: nil, want: ""},
		{name: "current present", cur: "v4.0", list: []string{"v3.0", "v4.0"}, want: "v4.0"},
		{name: "current pruned present", cur: "stable-v4.0", list: []string{"v3.0", "v4.0"}, want: "stable-v4.0"},
		{name: "current absent", cur: "v5.0", list: []string{"v4.0", "v3.0"}, want: "v3.0"},
		{name: "empty current", cur: "", list: []string{"v4.0", "v3.0"}, want: "v3.0"},
		{name: "non-version current matches non-version channel", cur: "stable", list: []string{"v4.0", "alpha"}, want: "stable"},
		{name: "same pruned form last wins", cur: "v9", list: []string{"a-v1.0", "b-v1.0", "v2.0"}, want: "b-v1.0"},
		{name: "invalids ordered by string", cur: "", list: []string{"4.0", "release-2023", "v1"}, want: "release-2023"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			list := append([]string(nil), tc.list...)
			assert.Equal(t, tc.want, channel.ODLMFindMinSemver(tc.cur, tc.list))
			assert.Equal(t, list, tc.list)
		})
	}
}
