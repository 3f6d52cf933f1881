package config

import (
	"strconv"
	"strings"
)

// OlderVersion says whether release version a is older than b, part by part, numerically where both
// parts are numbers (1.10.0 is newer than 1.9.0); a pre-release (1.5.0-rc.1) is older than its release.
func OlderVersion(a, b string) bool {
	av, apre, _ := strings.Cut(a, "-")
	bv, bpre, _ := strings.Cut(b, "-")
	if c := compareDotted(av, bv); c != 0 {
		return c < 0
	}
	switch {
	case apre == bpre:
		return false
	case apre == "":
		return false
	case bpre == "":
		return true
	}
	return compareDotted(apre, bpre) < 0
}

func compareDotted(a, b string) int {
	ap, bp := strings.Split(a, "."), strings.Split(b, ".")
	for i := range max(len(ap), len(bp)) {
		x, y := "0", "0"
		if i < len(ap) {
			x = ap[i]
		}
		if i < len(bp) {
			y = bp[i]
		}
		xn, xerr := strconv.Atoi(x)
		yn, yerr := strconv.Atoi(y)
		switch {
		case xerr == nil && yerr == nil && xn != yn:
			return xn - yn
		case (xerr != nil || yerr != nil) && x != y:
			return strings.Compare(x, y)
		}
	}
	return 0
}
