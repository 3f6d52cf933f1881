package hooks

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestParseAnswer(t *testing.T) {
	huge := time.Duration(math.MaxInt64/int64(time.Second)) * time.Second
	tests := []struct {
		in   string
		want answer
		ok   bool
	}{
		{"", answer{}, true},
		{"0", answer{}, true},
		{"-0", answer{}, true},
		{"5", answer{wait: 5 * time.Second}, true},
		{"+5", answer{wait: 5 * time.Second}, true},
		{"-3", answer{wait: 3 * time.Second, again: true}, true},
		{"99999999999999", answer{wait: huge}, true},
		{"-9223372036854775808", answer{wait: huge, again: true}, true},
		{"1.5", answer{}, false},
		{"5s", answer{}, false},
		{"done", answer{}, false},
		{"99999999999999999999", answer{}, false},
	}
	for _, tt := range tests {
		got, ok := parseAnswer(tt.in)
		assert.Equal(t, tt.ok, ok, "%q", tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
	}
}

func TestLastLine(t *testing.T) {
	tests := []struct {
		writes []string
		want   string
	}{
		{nil, ""},
		{[]string{"a\nb\n"}, "b"},
		{[]string{"a\n", "  -1  \n", "\n", "   \n"}, "-1"},
		{[]string{"a\n-", "1"}, "-1"},
		{[]string{"1", "2\n", "  "}, "12"},
		{[]string{"x\r\n5\r\n"}, "5"},
	}
	for _, tt := range tests {
		var l lastLine
		for _, w := range tt.writes {
			n, err := l.Write([]byte(w))
			assert.NoError(t, err)
			assert.Equal(t, len(w), n)
		}
		assert.Equal(t, tt.want, l.String(), "%q", tt.writes)
	}
}

func TestLastLineBoundsALine(t *testing.T) {
	var l lastLine
	long := make([]byte, 3*maxLine)
	for i := range long {
		long[i] = 'x'
	}
	_, _ = l.Write(long)
	assert.Len(t, l.String(), maxLine)
}
