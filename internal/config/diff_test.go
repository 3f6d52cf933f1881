package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func numbered(n int, change map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if c, ok := change[i]; ok {
			b.WriteString(c + "\n")
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name     string
		old, new map[string]string
		want     string
	}{
		{name: "equal", old: map[string]string{"a": "x\n"}, new: map[string]string{"a": "x\n"}, want: ""},
		{name: "both empty", want: ""},
		{name: "one line changed",
			old:  map[string]string{"instance.yaml": "stack: example\nparameters:\n  replicas: 1\n"},
			new:  map[string]string{"instance.yaml": "stack: example\nparameters:\n  replicas: 2\n"},
			want: "--- a/instance.yaml\n+++ b/instance.yaml\n@@ -1,3 +1,3 @@\n stack: example\n parameters:\n-  replicas: 1\n+  replicas: 2\n"},
		{name: "added and removed files",
			old:  map[string]string{"gone.yaml": "a\n", "same": "s\n"},
			new:  map[string]string{"new.yaml": "b\nc\n", "same": "s\n"},
			want: "--- a/gone.yaml\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-a\n--- /dev/null\n+++ b/new.yaml\n@@ -0,0 +1,2 @@\n+b\n+c\n"},
		{name: "context is three lines, far changes make two hunks",
			old: map[string]string{"f": numbered(20, nil)},
			new: map[string]string{"f": numbered(20, map[int]string{2: "two", 18: "eighteen"})},
			want: "--- a/f\n+++ b/f\n" +
				"@@ -1,5 +1,5 @@\n line 1\n-line 2\n+two\n line 3\n line 4\n line 5\n" +
				"@@ -15,6 +15,6 @@\n line 15\n line 16\n line 17\n-line 18\n+eighteen\n line 19\n line 20\n"},
		{name: "near changes share a hunk",
			old:  map[string]string{"f": numbered(12, nil)},
			new:  map[string]string{"f": numbered(12, map[int]string{3: "three", 9: "nine"})},
			want: "--- a/f\n+++ b/f\n@@ -1,12 +1,12 @@\n line 1\n line 2\n-line 3\n+three\n line 4\n line 5\n line 6\n line 7\n line 8\n-line 9\n+nine\n line 10\n line 11\n line 12\n"},
		{name: "insertion in the middle",
			old:  map[string]string{"f": "a\nb\nc\nd\n"},
			new:  map[string]string{"f": "a\nb\nX\nc\nd\n"},
			want: "--- a/f\n+++ b/f\n@@ -1,4 +1,5 @@\n a\n b\n+X\n c\n d\n"},
		{name: "missing final newline",
			old:  map[string]string{"f": "a\nb"},
			new:  map[string]string{"f": "a\nb\n"},
			want: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n"},
		{name: "binary",
			old:  map[string]string{"bin": "a\x00"},
			new:  map[string]string{"bin": "b\x00"},
			want: "Binary files a/bin and b/bin differ\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Diff(toBytes(tt.old), toBytes(tt.new)))
		})
	}
}

func TestDiffLCSIsMinimal(t *testing.T) {
	// Reordered lines: a minimal diff keeps the longest common run (b c d) and moves "a".
	got := Diff(toBytes(map[string]string{"f": "a\nb\nc\nd\n"}), toBytes(map[string]string{"f": "b\nc\nd\na\n"}))
	assert.Equal(t, "--- a/f\n+++ b/f\n@@ -1,4 +1,4 @@\n-a\n b\n c\n d\n+a\n", got)
}

func TestDiffHugeFileFallsBack(t *testing.T) {
	// Past the LCS budget the changed middle is shown as replaced, still correct as a patch.
	var a, b strings.Builder
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
	}
	got := Diff(toBytes(map[string]string{"f": a.String()}), toBytes(map[string]string{"f": b.String()}))
	assert.True(t, strings.HasPrefix(got, "--- a/f\n+++ b/f\n@@ -1,3000 +1,3000 @@\n-a0\n"))
	assert.Equal(t, 3000, strings.Count(got, "\n-a"))
	assert.Equal(t, 3000, strings.Count(got, "\n+b"))
}

func toBytes(m map[string]string) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range m {
		out[k] = []byte(v)
	}
	return out
}
