package config

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQuote(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{"hello", `"hello"`},
		{`say "hi"\now`, `"say \"hi\"\\now"`},
		{"a\nb\tc\r", `"a\nb\tc\r"`},
		{"${var.x} and %{if}", `"$${var.x} and %%{if}"`},
		{"$5 and 100%", `"$5 and 100%"`},
		{"héllo ✓", `"héllo ✓"`},
		{"bell\a", `"bell\u0007"`},
		{"bad\xffbyte", `"bad\ufffdbyte"`},
		{int64(3), `"3"`},
		{true, `"true"`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, quote(tt.in), "%q", tt.in)
	}
}

func TestToJSON(t *testing.T) {
	got, err := toJSON(map[string]any{"b": 1, "a": "<x> & y"})
	require.NoError(t, err)
	assert.Equal(t, `{"a":"<x> & y","b":1}`, got)

	_, err = toJSON(func() {})
	require.Error(t, err)
}

// The same file is parsed once; another text, another context (name) or a refused one is not
// taken for it.
func TestNewTemplateKeepsParsedTemplates(t *testing.T) {
	text := []byte(`name = {{ .Params.name }}` + "\n")
	a, err := newTemplate("terraform/kept.tf.tmpl", text)
	require.NoError(t, err)
	b, err := newTemplate("terraform/kept.tf.tmpl", text)
	require.NoError(t, err)
	require.Same(t, a, b, "the second parse is the kept template")

	c, err := newTemplate("terraform/kept.tf.tmpl", append([]byte("# changed\n"), text...))
	require.NoError(t, err)
	require.NotSame(t, a, c)

	var out bytes.Buffer
	require.NoError(t, b.Execute(&out, TemplateData{Params: map[string]any{"name": `a"b`}}))
	require.Equal(t, `name = "a\"b"`+"\n", out.String(), "the kept template still escapes for HCL")

	_, err = newTemplate("hooks/kept.sh.tmpl", []byte(`echo {{ .Params.name }}`))
	require.Error(t, err, "a hook takes no tenant value, kept or not")
	_, err = newTemplate("hooks/kept.sh.tmpl", []byte(`echo {{ .Params.name }}`))
	require.Error(t, err, "a refusal is not kept as a template")
}
