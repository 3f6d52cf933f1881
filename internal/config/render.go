package config

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/slipway-dev/slipway/internal/contract"
	"github.com/slipway-dev/slipway/internal/names"
	"github.com/slipway-dev/slipway/internal/yamlfields"
)

// TemplateData is what a stack's templates see.
type TemplateData struct {
	Tenant    string
	Name      string
	Namespace string // the instance's recorded Kubernetes namespace (internal/names)
	Stack     string
	Params    map[string]any // resolved by Validate: defaults applied
	// Outputs are the terraform outputs manifests/ templates see (outputs.go); nil elsewhere.
	Outputs map[string]string
}

// backendRE finds a backend or cloud block: slipway configures the backend itself.
var backendRE = regexp.MustCompile(`(?m)^\s*(backend\s+"[^"]*"|cloud)\s*\{`)

// Render validates inst (as if never deployed) and renders the instance's directory,
// keyed by path relative to ref.Dir(): instance.yaml (the canonical config, parameters
// resolved), terraform/..., manifests/... and EngineFile when the stack names an engine.
// Equal input gives byte-identical output.
// namespace is the instance's recorded namespace: the caller holds it, it is never recomputed.
func Render(ref contract.Ref, namespace string, stack *Stack, inst *Instance) (map[string][]byte, error) {
	return RenderWithOutputs(ref, namespace, stack, inst, nil)
}

// RenderWithOutputs is Render with the terraform outputs the manifests' .Outputs hold (outputs.go):
// those of the last apply, sensitive ones as terraform.SensitiveOutput; nil before any apply.
func RenderWithOutputs(ref contract.Ref, namespace string, stack *Stack, inst *Instance, outputs map[string]string) (map[string][]byte, error) {
	if err := ref.Validate(); err != nil {
		return nil, err
	}
	if !names.IsLabel(namespace) {
		return nil, &NamespaceError{Value: namespace}
	}
	params, err := Validate(stack, inst, nil)
	if err != nil {
		return nil, err
	}
	data := TemplateData{Tenant: ref.Tenant, Name: ref.Name, Namespace: namespace, Stack: stack.Name, Params: params}
	out := map[string][]byte{
		// The controls an instance file sets stay with it: every later operation reads them from main.
		InstanceFile: (&Instance{Stack: inst.Stack, Parameters: params, Approval: inst.Approval, ControlPlane: inst.ControlPlane, Placement: inst.Placement,
			Labels: inst.Labels}).Canonical(),
	}
	if e := stack.Schema.Engine; !e.IsZero() {
		out[EngineFile] = []byte(e.String() + "\n")
	}
	var fe yamlfields.Errors
	manifestData := data
	if UsesOutputs(stack) {
		manifestData.Outputs = templateOutputs(stack, outputs)
		out[OutputsFile] = outputsFile(outputs)
	}
	for _, p := range sortedKeys(stack.Files) {
		target, content := strings.TrimSuffix(p, TemplateSuffix), stack.Files[p]
		if target != p {
			d := data
			if strings.HasPrefix(target, ManifestsDir+"/") {
				d = manifestData
			}
			if !checkOutputRefs(p, content, d.Outputs, outputs, &fe) {
				continue
			}
			content, err = execute(p, content, d)
			if err != nil {
				fe.Add(p, "%v", err)
				continue
			}
		}
		if strings.HasPrefix(target, TerraformDir+"/") && strings.HasSuffix(target, ".tf") && backendRE.Match(content) {
			fe.Add(p, "must not declare a backend or cloud block: slipway adds the backend")
			continue
		}
		out[target] = bytes.Clone(content)
	}
	if err := stackError(stack.Name, fe); err != nil {
		return nil, err
	}
	return out, nil
}

// NamespaceError is a namespace to render with that is not a DNS-1123 label.
type NamespaceError struct{ Value string }

func (e *NamespaceError) Error() string {
	return fmt.Sprintf("namespace %q %s", e.Value, names.LabelRule)
}

func execute(name string, text []byte, data TemplateData) ([]byte, error) {
	t, err := newTemplate(name, text)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
