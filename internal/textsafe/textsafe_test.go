package textsafe_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/odlm-render/odlm-render/internal/textsafe"
)

func TestLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain text, v1.2.3", "plain text, v1.2.3"},
		{"erase\x1b[2K\rforged", `erase\x1b[2K\rforged`},
		{"bell\a and\x00nul", `bell\x07 and\x00nul`},
		{"two\nlines", `two\nlines`},
		{"tab\tstays", "tab\tstays"},
		{"c1 \u009b and line sep \u2028 and bidi \u202e", `c1 \u009b and line sep \u2028 and bidi \u202e`},
		{"ünïcödé 日本", "ünïcödé 日本"},
	} {
		assert.Equal(t, tc.want, textsafe.Line(tc.in), "%q", tc.in)
	}
	assert.Equal(t, "one\ntwo\\r", textsafe.Lines("one\ntwo\r"))
}

func TestMarkdown(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"kube-green.v0.7.1", "kube-green.v0.7.1"},
		{"a | b", `a \| b`},
		{"<img src=x onerror=alert(1)>", `\<img src=x onerror=alert(1)\>`},
		{"[click](https://evil.example)", `\[click\](https\://evil.example)`},
		{"![x](http://e/x.png)", `\!\[x\](http\://e/x.png)`},
		{"```\n## forged\n```", "\\`\\`\\`\\\\n\\#\\# forged\\\\n\\`\\`\\`"}, // the escape of the newline renders as \n
		{"line\r# heading", `line\\r\# heading`},
		{"ping @admins and #1", `ping \@admins and \#1`},
		{"visit www.evil.example", `visit www\.evil.example`},
		{"**bold** _it_ ~~del~~ $x$ &amp;", `\*\*bold\*\* \_it\_ \~\~del\~\~ \$x\$ \&amp;`},
		{`back\slash`, `back\\slash`},
	} {
		assert.Equal(t, tc.want, textsafe.Markdown(tc.in), "%q", tc.in)
	}
}

func TestHTML(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "&lt;/summary&gt;&lt;img src=x&gt; &amp; &quot;q&quot; &#39;s\\n", textsafe.HTML("</summary><img src=x> & \"q\" 's\n"))
}
