// Package version says which build of slipway is running: the release set at link time, and the
// commit Go's build info recorded.
package version

import (
	"runtime/debug"
	"sync"
)

// Version is the release, set at link time:
//
//	go build -ldflags "-X github.com/slipway-dev/slipway/internal/version.Version=v1.2.3"
var Version = "dev"

// Info is what a build knows about itself.
type Info struct {
	Version   string `json:"version" yaml:"version"`
	Commit    string `json:"commit" yaml:"commit"`
	Modified  bool   `json:"modified" yaml:"modified"`
	GoVersion string `json:"goVersion" yaml:"goVersion"`
}

var (
	once sync.Once
	info Info
)

// Get reads the build info once; Commit is "unknown" when the binary was built outside git.
func Get() Info {
	once.Do(func() {
		info = Info{Version: Version, Commit: "unknown"}
		bi, ok := debug.ReadBuildInfo()
		if !ok {
			return
		}
		info.GoVersion = bi.GoVersion
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Commit = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	})
	return info
}

// String is "v1.2.3 (commit abc1234)", with "+dirty" when the tree had changes.
func (i Info) String() string {
	c := i.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if i.Modified {
		c += "+dirty"
	}
	return i.Version + " (commit " + c + ")"
}
