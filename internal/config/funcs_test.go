package config

import (
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
