package terraform

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestTailKeepsWholeRunes(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("│", 2000) // 3 bytes each
	got := tail(s, maxStderrTail)
	assert.LessOrEqual(t, len(got), maxStderrTail)
	assert.True(t, utf8.ValidString(got))
	assert.Equal(t, "short", tail("  short\n", maxStderrTail))
}

func TestTailBufferKeepsLastBytes(t *testing.T) {
	t.Parallel()
	b := &tailBuffer{max: 8}
	b.Write([]byte("0123456789"))
	b.Write([]byte("\x1b[31mab")) // buffer now holds "9\x1b[31mab"
	assert.Equal(t, "9ab", b.String())
}

func TestParseLockErrorIgnoresTextBeforeTheDiagnostic(t *testing.T) {
	t.Parallel()
	text := "│ Path: /elsewhere\n" +
		"│ Error: Error acquiring the state lock\n│\n│ Error message: resource temporarily unavailable\n│ Lock Info:\n" +
		"│   ID:        abc\n│   Path:      /s/terraform.tfstate\n│   Operation: OperationTypeApply\n│   Who:       u@h\n" +
		"│   Version:   1.11.4\n│   Created:   2026-01-02 03:04:05.5 +0000 UTC\n│   Info:      \n│\n│ ID: not-this\n"
	info, detail := parseLockError(text)
	assert.Equal(t, LockInfo{ID: "abc", Who: "u@h", Operation: "OperationTypeApply",
		Created: "2026-01-02T03:04:05.5Z", Path: "/s/terraform.tfstate"}, info)
	assert.Equal(t, "resource temporarily unavailable", detail)
}
