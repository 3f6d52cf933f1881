package testsuite

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A recording never takes the directory of an older one: the first goes to the name, later ones
// to the name and the day, then a counter.
func TestHistoryDirNameNeverReusesAnExistingDirectory(t *testing.T) {
	day := time.Date(2026, 11, 25, 23, 30, 0, 0, time.FixedZone("UTC-2", -2*3600)) // 01:30 UTC the next day
	for _, tc := range []struct {
		existing []string
		want     string
	}{
		{nil, "lifecycle"},
		{[]string{"lifecycle-v0", "lifecycle-v1"}, "lifecycle"},
		{[]string{"lifecycle"}, "lifecycle-2026-11-26"},
		{[]string{"lifecycle", "lifecycle-2026-11-26"}, "lifecycle-2026-11-26-2"},
		{[]string{"lifecycle", "lifecycle-2026-11-26", "lifecycle-2026-11-26-2"}, "lifecycle-2026-11-26-3"},
	} {
		exists := func(dir string) bool { return slices.Contains(tc.existing, dir) }
		require.Equal(t, tc.want, HistoryDirName("lifecycle", day, exists), "beside %q", tc.existing)
	}
}
