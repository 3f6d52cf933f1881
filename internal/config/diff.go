package config

import (
	"bytes"
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines shown around a change, as in `diff -u`.
const diffContext = 3

// maxLCSCells bounds the LCS table; beyond it a file's changed middle is shown as replaced.
const maxLCSCells = 4 << 20

// Diff is a unified diff from oldFiles to newFiles (rendered instance directories), files in
// path order, with "--- a/path" / "+++ b/path" headers (/dev/null for an added or removed
// file) and @@ hunks. It is "" when the maps are equal.
func Diff(oldFiles, newFiles map[string][]byte) string {
	paths := map[string]bool{}
	for p := range oldFiles {
		paths[p] = true
	}
	for p := range newFiles {
		paths[p] = true
	}
	var b strings.Builder
	for _, p := range sortedKeys(paths) {
		oldData, inOld := oldFiles[p]
		newData, inNew := newFiles[p]
		if inOld && inNew && bytes.Equal(oldData, newData) {
			continue
		}
		from, to := "a/"+p, "b/"+p
		if !inOld {
			from = "/dev/null"
		}
		if !inNew {
			to = "/dev/null"
		}
		if bytes.IndexByte(oldData, 0) >= 0 || bytes.IndexByte(newData, 0) >= 0 {
			fmt.Fprintf(&b, "Binary files %s and %s differ\n", from, to)
			continue
		}
		fmt.Fprintf(&b, "--- %s\n+++ %s\n", from, to)
		writeHunks(&b, diffLines(splitLines(oldData), splitLines(newData)))
	}
	return b.String()
}

// splitLines keeps each line's "\n", so a missing final newline is a difference too.
func splitLines(data []byte) []string {
	var lines []string
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			lines = append(lines, string(data))
			break
		}
		lines = append(lines, string(data[:i+1]))
		data = data[i+1:]
	}
	return lines
}

type diffOp struct {
	kind byte // ' ', '-' or '+'
	line string
}

// diffLines is a line diff by longest common subsequence, after trimming the common ends.
func diffLines(a, b []string) []diffOp {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var ops []diffOp
	for _, l := range a[:pre] {
		ops = append(ops, diffOp{' ', l})
	}
	ops = append(ops, lcsOps(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		ops = append(ops, diffOp{' ', l})
	}
	return ops
}

func lcsOps(a, b []string) []diffOp {
	n, m := len(a), len(b)
	var ops []diffOp
	if n*m > maxLCSCells {
		for _, l := range a {
			ops = append(ops, diffOp{'-', l})
		}
		for _, l := range b {
			ops = append(ops, diffOp{'+', l})
		}
		return ops
	}
	// dp[i*(m+1)+j] is the LCS length of a[i:] and b[j:].
	dp := make([]int32, (n+1)*(m+1))
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case a[i] == b[j]:
				dp[i*(m+1)+j] = dp[(i+1)*(m+1)+j+1] + 1
			default:
				dp[i*(m+1)+j] = max(dp[(i+1)*(m+1)+j], dp[i*(m+1)+j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, diffOp{' ', a[i]})
			i, j = i+1, j+1
		case j == m || (i < n && dp[(i+1)*(m+1)+j] >= dp[i*(m+1)+j+1]):
			ops = append(ops, diffOp{'-', a[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', b[j]})
			j++
		}
	}
	return ops
}

// writeHunks prints the changes with diffContext lines around them, merging close hunks.
func writeHunks(b *strings.Builder, ops []diffOp) {
	for start := 0; start < len(ops); {
		first := start
		for first < len(ops) && ops[first].kind == ' ' {
			first++
		}
		if first == len(ops) {
			return
		}
		// Extend the hunk while the next change is within 2*diffContext unchanged lines.
		last := first
		for k := first; k < len(ops); k++ {
			if ops[k].kind != ' ' {
				last = k
			} else if k-last > 2*diffContext {
				break
			}
		}
		lo, hi := max(first-diffContext, start), min(last+diffContext+1, len(ops))
		writeHunk(b, ops, lo, hi)
		start = hi
	}
}

func writeHunk(b *strings.Builder, ops []diffOp, lo, hi int) {
	oldStart, newStart := 1, 1
	for _, op := range ops[:lo] {
		if op.kind != '+' {
			oldStart++
		}
		if op.kind != '-' {
			newStart++
		}
	}
	oldCount, newCount := 0, 0
	for _, op := range ops[lo:hi] {
		if op.kind != '+' {
			oldCount++
		}
		if op.kind != '-' {
			newCount++
		}
	}
	// An empty side is numbered by the line before it, as diff -u does.
	if oldCount == 0 {
		oldStart--
	}
	if newCount == 0 {
		newStart--
	}
	fmt.Fprintf(b, "@@ -%d,%d +%d,%d @@\n", oldStart, oldCount, newStart, newCount)
	for _, op := range ops[lo:hi] {
		b.WriteByte(op.kind)
		b.WriteString(op.line)
		if !strings.HasSuffix(op.line, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
}
