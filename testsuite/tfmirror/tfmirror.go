// Package tfmirror offers providers built by scripts/tools.sh to the real terraform through a
// filesystem mirror, so tests install them with no registry: Layout writes the mirror and the
// CLI configuration that points terraform at it (TF_CLI_CONFIG_FILE).
package tfmirror

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/slipway-dev/slipway/internal/localdirs"
)

// Provider is one provider a mirror offers.
type Provider struct {
	// Source is the registry address without its host, e.g. hashicorp/time.
	Source string
	// Version without the v, e.g. 0.14.2.
	Version string
	// Binary is the built provider.
	Binary string
}

// TimeVersion is the hashicorp/time release scripts/tools.sh builds (terraform-provider-time).
const TimeVersion = "0.14.2"

// Time is hashicorp/time from the tools cache; its time_sleep makes an apply take as long as asked.
func Time() Provider {
	return Provider{Source: "hashicorp/time", Version: TimeVersion,
		Binary: filepath.Join(localdirs.Tools(), "terraform-provider-time-v"+TimeVersion, "terraform-provider-time")}
}

// hosts are the registries whose addresses a mirror offers its providers under: terraform's and OpenTofu's.
var hosts = []string{"registry.terraform.io", "registry.opentofu.org"}

// Mirror is a laid-out filesystem mirror.
type Mirror struct {
	// Dir is the mirror's root (<Dir>/<registry host>/<source>/<version>/linux_amd64/...).
	Dir string
	// ConfigFile is the CLI configuration to give terraform as TF_CLI_CONFIG_FILE.
	ConfigFile string
}

// Layout writes a mirror of ps and its CLI configuration under a temp dir of t. Terraform
// installs those providers from the mirror only and every other one as usual. A provider
// not built fails the test, naming the command that builds it.
func Layout(t testing.TB, ps ...Provider) Mirror {
	t.Helper()
	m, err := Write(t.TempDir(), ps...)
	if err != nil {
		t.Fatalf("tfmirror: %v", err)
	}
	return m
}

// Write lays the mirror out in dir, unpacked: terraform links a provider from it.
func Write(dir string, ps ...Provider) (Mirror, error) {
	return write(dir, false, ps)
}

// WritePacked lays the mirror out in dir with each provider in its release zip, as the
// registry serves it: terraform unpacks it into the plugin cache, as it does a download.
func WritePacked(dir string, ps ...Provider) (Mirror, error) {
	return write(dir, true, ps)
}

func write(dir string, packed bool, ps []Provider) (Mirror, error) {
	m := Mirror{Dir: filepath.Join(dir, "mirror"), ConfigFile: filepath.Join(dir, "terraform.tfrc")}
	var addrs []string
	for _, p := range ps {
		bin, err := os.ReadFile(p.Binary)
		if err != nil {
			return Mirror{}, fmt.Errorf("provider %s %s: %w (build it with scripts/tools.sh terraform-provider-%s)",
				p.Source, p.Version, err, filepath.Base(p.Source))
		}
		name := "terraform-provider-" + filepath.Base(p.Source) + "_v" + p.Version
		if packed {
			if bin, err = zipped(name, bin); err != nil {
				return Mirror{}, err
			}
		}
		// Under both registries' hosts: OpenTofu reads hashicorp/time as registry.opentofu.org/hashicorp/time.
		for _, host := range hosts {
			// The unpacked layout: <host>/<namespace>/<type>/<version>/<os>_<arch>/terraform-provider-<type>_v<version>;
			// the packed one: <host>/<namespace>/<type>/terraform-provider-<type>_<version>_<os>_<arch>.zip.
			target, file := filepath.Join(m.Dir, host, p.Source, p.Version, "linux_amd64"), name
			if packed {
				target, file = filepath.Join(m.Dir, host, p.Source), "terraform-provider-"+filepath.Base(p.Source)+"_"+p.Version+"_linux_amd64.zip"
			}
			if err := os.MkdirAll(target, 0o755); err != nil {
				return Mirror{}, err
			}
			if err := os.WriteFile(filepath.Join(target, file), bin, 0o755); err != nil {
				return Mirror{}, err
			}
			addrs = append(addrs, fmt.Sprintf("%q", host+"/"+p.Source))
		}
	}
	list := strings.Join(addrs, ", ")
	cfg := fmt.Sprintf(`provider_installation {
  filesystem_mirror {
    path    = %q
    include = [%s]
  }
  direct {
    exclude = [%s]
  }
}
`, m.Dir, list, list)
	if err := os.WriteFile(m.ConfigFile, []byte(cfg), 0o644); err != nil {
		return Mirror{}, err
	}
	return m, nil
}

// zipped is a release zip holding bin as name, compressed fast.
func zipped(name string, bin []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) { return flate.NewWriter(w, flate.BestSpeed) })
	hdr := &zip.FileHeader{Name: name, Method: zip.Deflate}
	hdr.SetMode(0o755)
	f, err := zw.CreateHeader(hdr)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(bin); err != nil {
		return nil, err
	}
	err = zw.Close()
	return buf.Bytes(), err
}
