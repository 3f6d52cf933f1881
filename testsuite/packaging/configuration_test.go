package packaging

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// configurationPage is the page whose tables list every environment variable slipway reads.
const configurationPage = "docs/configuration.md"

// envRow is one row of the page's tables: the variables its first cell names, in backticks.
type envRow struct {
	line   int
	names  []string
	family string // the prefix of a row ending in "…": the rest of a library's family (TEMPORAL_)
}

var backticked = regexp.MustCompile("`([^`]+)`")

// envRows reads the rows of the page's tables whose first cell names variables; each must also
// say who reads them, the default and what they set.
func envRows(t *testing.T) []envRow {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(Root(), filepath.FromSlash(configurationPage)))
	require.NoError(t, err)
	var rows []envRow
	for i, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		row := envRow{line: i + 1}
		for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
			if envName.MatchString(m[1]) {
				row.names = append(row.names, m[1])
			}
		}
		if len(row.names) == 0 {
			continue // a header or a separator
		}
		if len(cells) != 4 || strings.TrimSpace(cells[1]) == "" || strings.TrimSpace(cells[3]) == "" {
			t.Errorf("%s:%d: a row has four cells (variable, read by, default, what it sets), the first two and the last filled: %s", configurationPage, row.line, line)
		}
		if strings.Contains(cells[0], "…") {
			row.family, _, _ = strings.Cut(row.names[0], "_")
			row.family += "_"
		}
		rows = append(rows, row)
	}
	return rows
}

// docs/configuration.md lists every environment variable the non-test code reads, and none that
// no code reads. Temporal's TEMPORAL_* are read by envconfig: its row names some and ends in "…".
func TestConfigurationListsEveryVariableTheCodeReads(t *testing.T) {
	code, err := EnvReadsInCode(Root())
	require.NoError(t, err)
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "go.temporal.io/sdk/contrib/envconfig").Output()
	require.NoError(t, err, "go list envconfig")
	library, err := EnvReadsInCode(strings.TrimSpace(string(out)))
	require.NoError(t, err)
	require.Contains(t, library, "TEMPORAL_ADDRESS", "the scan of envconfig found too little")
	require.Contains(t, code, "SLIPWAY_CODEC_KEY", "the scan of the code found too little")

	listed, families := map[string]int{}, map[string]bool{}
	for _, row := range envRows(t) {
		for _, n := range row.names {
			if at, ok := listed[n]; ok {
				t.Errorf("%s:%d lists %s again (first on line %d)", configurationPage, row.line, n, at)
			}
			listed[n] = row.line
		}
		if row.family != "" {
			families[row.family] = true
		}
	}
	require.Greater(t, len(listed), 50, "%s: the tables name too few variables", configurationPage)

	for _, n := range sortedNames(code) {
		_, ok := listed[n]
		family, _, _ := strings.Cut(n, "_")
		if !ok && !(families[family+"_"] && library[n] != nil) {
			t.Errorf("%s lacks %s, read in %s", configurationPage, n, strings.Join(code[n], ", "))
		}
	}
	for _, n := range sortedNames(listed) {
		if code[n] == nil && library[n] == nil {
			t.Errorf("%s:%d lists %s, which no code reads", configurationPage, listed[n], n)
		}
	}
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
