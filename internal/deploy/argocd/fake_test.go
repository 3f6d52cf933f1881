package argocd

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// fakeArgoCD is a fake argocd-server: an httptest server that answers the documented
// /api/v1 endpoints the way argocd-server v3.2 does (415 without Content-Type, 401 without
// the token, 403 for a missing app unless the project is given, grpc-gateway error bodies)
// and plays the application-controller on each GET, advancing a pending sync one step.
type fakeArgoCD struct {
	srv   *httptest.Server
	token string

	mu       sync.Mutex
	apps     map[string]*Application
	projects map[string]*AppProject
	// projectRaces counts project updates still to refuse as stale (another writer won).
	projectRaces int
	// steps counts controller steps taken for the pending operation, per app.
	steps map[string]int
	// gone counts GETs left before a deleted app disappears (its finalizer at work).
	gone map[string]int

	// knobs
	mode             fakeMode
	stepsToFinish    int // controller steps from Running to the final phase
	deleteSteps      int // GETs a deleted app survives
	conflictsOnWrite int // how many POST /applications answer 409 before succeeding
	staleProjects    int // how many POST /applications find the project's cached destinations behind
	inProgressStatus int // status for "another operation is already in progress" (400 like v3.2, or 409)
	clusters         []Cluster

	// observations
	calls          []string // "METHOD /path?query"
	syncs          []syncRequest
	terminated     int
	withoutCT      int
	created, puts  []Application
	lastWriteQuery []string
}

type fakeMode int

const (
	succeed  fakeMode = iota // Running → Succeeded, Synced, Healthy
	failSync                 // Running → Failed with a resource that failed to apply
	hang                     // Running forever: a Deployment that never becomes available
	degrade                  // Succeeded, but health Degraded
)

const fakeToken = "fake-token-s3cr3t"

func newFake(t *testing.T) *fakeArgoCD {
	f := &fakeArgoCD{token: fakeToken, apps: map[string]*Application{}, projects: map[string]*AppProject{}, steps: map[string]int{},
		gone: map[string]int{}, stepsToFinish: 2, deleteSteps: 2, inProgressStatus: http.StatusBadRequest}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/v1/session", f.login)
	mux.HandleFunc("POST /api/v1/applications", f.authed(f.create))
	mux.HandleFunc("GET /api/v1/applications", f.authed(f.list))
	mux.HandleFunc("GET /api/v1/applications/{name}", f.authed(f.get))
	mux.HandleFunc("PUT /api/v1/applications/{name}", f.authed(f.update))
	mux.HandleFunc("DELETE /api/v1/applications/{name}", f.authed(f.delete))
	mux.HandleFunc("POST /api/v1/applications/{name}/sync", f.authed(f.sync))
	mux.HandleFunc("DELETE /api/v1/applications/{name}/operation", f.authed(f.terminate))
	mux.HandleFunc("GET /api/v1/applications/{name}/resource-tree", f.authed(f.tree))
	mux.HandleFunc("GET /api/v1/clusters", f.authed(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{"items": f.clusters})
	}))
	mux.HandleFunc("GET /api/v1/projects/{name}", f.authed(f.getProject))
	mux.HandleFunc("POST /api/v1/projects", f.authed(f.createProject))
	mux.HandleFunc("PUT /api/v1/projects/{name}", f.authed(f.updateProject))
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.calls = append(f.calls, r.Method+" "+r.URL.RequestURI())
		f.mu.Unlock()
		if r.Header.Get("Content-Type") != "application/json" {
			f.mu.Lock()
			f.withoutCT++
			f.mu.Unlock()
			http.Error(w, "415 unsupported media type", http.StatusUnsupportedMediaType)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeArgoCD) client(t *testing.T, opts ...Option) *Client {
	c, err := New(f.srv.URL, f.token, append([]Option{WithPollInterval(10 * time.Millisecond)}, opts...)...)
	require.NoError(t, err)
	return c
}

// grpcError writes grpc-gateway's error body.
func grpcError(w http.ResponseWriter, status, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": msg, "code": code, "message": msg})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeArgoCD) authed(h func(http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+f.token {
			grpcError(w, http.StatusUnauthorized, 16, "invalid session: token signature is invalid")
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		h(w, r)
	}
}

func (f *fakeArgoCD) login(w http.ResponseWriter, r *http.Request) {
	var in struct{ Username, Password string }
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		grpcError(w, http.StatusBadRequest, 3, err.Error())
		return
	}
	if in.Username != "admin" || in.Password != "hunter2" {
		grpcError(w, http.StatusUnauthorized, 16, "Invalid username or password")
		return
	}
	writeJSON(w, map[string]string{"token": f.token})
}

// lookup finds an app the way argocd-server does: without ?project a missing app is a 403,
// and an app in another project than the one named is a 404.
func (f *fakeArgoCD) lookup(w http.ResponseWriter, r *http.Request, project string) *Application {
	name := r.PathValue("name")
	a, ok := f.apps[name]
	if ok && project != "" && a.Spec.Project != project {
		ok = false
	}
	if !ok {
		if project == "" {
			grpcError(w, http.StatusForbidden, 7, "permission denied")
		} else {
			grpcError(w, http.StatusNotFound, 5, fmt.Sprintf("applications.argoproj.io %q not found", name))
		}
		return nil
	}
	return a
}

func (f *fakeArgoCD) create(w http.ResponseWriter, r *http.Request) {
	var a Application
	if err := json.NewDecoder(r.Body).Decode(&a); err != nil {
		grpcError(w, http.StatusBadRequest, 3, err.Error())
		return
	}
	f.created = append(f.created, a)
	f.lastWriteQuery = append(f.lastWriteQuery, r.URL.RawQuery)
	if f.conflictsOnWrite > 0 {
		f.conflictsOnWrite--
		grpcError(w, http.StatusConflict, 6, fmt.Sprintf("applications.argoproj.io %q already exists", a.Metadata.Name))
		return
	}
	if f.staleProjects > 0 {
		f.staleProjects--
		grpcError(w, http.StatusBadRequest, 3, fmt.Sprintf("application spec for %s is invalid: InvalidSpecError: application destination server '%s' and namespace '%s' do not match any of the allowed destinations in project '%s'",
			a.Metadata.Name, a.Spec.Destination.Server, a.Spec.Destination.Namespace, a.Spec.Project))
		return
	}
	if old, ok := f.apps[a.Metadata.Name]; ok {
		if r.URL.Query().Get("upsert") != "true" {
			grpcError(w, http.StatusBadRequest, 3, "existing application spec is different, use upsert flag to force update")
			return
		}
		old.Spec, old.Metadata.Labels, old.Metadata.Finalizers = a.Spec, a.Metadata.Labels, a.Metadata.Finalizers
		writeJSON(w, old)
		return
	}
	a.Metadata.Namespace = "argocd"
	f.apps[a.Metadata.Name] = &a
	writeJSON(w, &a)
}

func (f *fakeArgoCD) update(w http.ResponseWriter, r *http.Request) {
	var a Application
	if err := json.NewDecoder(r.Body).Decode(&a); err != nil {
		grpcError(w, http.StatusBadRequest, 3, err.Error())
		return
	}
	f.puts = append(f.puts, a)
	old := f.lookup(w, r, r.URL.Query().Get("project"))
	if old == nil {
		return
	}
	old.Spec, old.Metadata.Labels, old.Metadata.Finalizers = a.Spec, a.Metadata.Labels, a.Metadata.Finalizers
	writeJSON(w, old)
}

func (f *fakeArgoCD) get(w http.ResponseWriter, r *http.Request) {
	a := f.lookup(w, r, r.URL.Query().Get("project"))
	if a == nil {
		return
	}
	name := a.Metadata.Name
	if a.Metadata.DeletionTimestamp != "" {
		if f.gone[name] <= 0 {
			delete(f.apps, name)
			grpcError(w, http.StatusNotFound, 5, fmt.Sprintf("applications.argoproj.io %q not found", name))
			return
		}
		f.gone[name]--
	}
	f.control(a)
	writeJSON(w, a)
}

// list answers like argocd-server: projects and a label selector (here: keys that must
// exist, or key=value) narrow the list, and no match is "items": null.
func (f *fakeArgoCD) list(w http.ResponseWriter, r *http.Request) {
	projects := r.URL.Query()["projects"]
	name := r.URL.Query().Get("name")
	if _, ok := f.apps[name]; name != "" && !ok {
		grpcError(w, http.StatusNotFound, 5, fmt.Sprintf("application '%s' not found", name))
		return
	}
	var keys []string
	if sel := r.URL.Query().Get("selector"); sel != "" {
		keys = strings.Split(sel, ",")
	}
	var items []Application
	for _, name := range sortedAppNames(f.apps) {
		a := f.apps[name]
		if name != "" && a.Metadata.Name != name {
			continue
		}
		if len(projects) > 0 && !slices.Contains(projects, a.Spec.Project) {
			continue
		}
		if !hasLabels(a.Metadata.Labels, keys) {
			continue
		}
		items = append(items, *a)
	}
	writeJSON(w, map[string]any{"metadata": map[string]string{"resourceVersion": "1"}, "items": items})
}

func hasLabels(labels map[string]string, keys []string) bool {
	for _, k := range keys {
		k, v, eq := strings.Cut(k, "=")
		if got, ok := labels[k]; !ok || eq && got != v {
			return false
		}
	}
	return true
}

func sortedAppNames(apps map[string]*Application) []string {
	names := make([]string, 0, len(apps))
	for n := range apps {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// control plays the application-controller: one step of the pending sync per GET.
func (f *fakeArgoCD) control(a *Application) {
	if a.Operation == nil {
		return
	}
	name, rev := a.Metadata.Name, a.Operation.Sync.Revision
	f.steps[name]++
	op := &OperationState{Operation: *a.Operation, Phase: PhaseRunning, Message: "one or more tasks are running"}
	a.Status.OperationState = op
	a.Status.Sync = SyncStatus{Status: SyncOutOfSync, Revision: rev}
	a.Status.Health = HealthStatus{Status: "Progressing"}
	a.Status.Resources = []ResourceStatus{
		{Version: "v1", Kind: "Namespace", Name: "acme-web", Status: SyncOutOfSync, Health: &HealthStatus{Status: HealthMissing}},
		{Version: "v1", Kind: "ConfigMap", Namespace: "acme-web", Name: "web", Status: SyncOutOfSync, Health: &HealthStatus{Status: HealthMissing}},
	}
	if f.steps[name] < f.stepsToFinish || f.mode == hang {
		if f.mode == hang {
			a.Status.Resources = append(a.Status.Resources, ResourceStatus{Group: "apps", Version: "v1", Kind: "Deployment",
				Namespace: "acme-web", Name: "web", Status: SyncSynced,
				Health: &HealthStatus{Status: "Progressing", Message: "Waiting for rollout to finish: 0 of 1 updated replicas are available..."}})
			a.Status.Conditions = []Condition{{Type: "SyncError", Message: "waiting for healthy state of apps/Deployment/web"}}
		}
		return
	}
	a.Operation = nil
	op.SyncResult = &SyncOperationResult{Revision: rev}
	switch f.mode {
	case failSync:
		op.Phase = PhaseFailed
		op.Message = "one or more objects failed to apply, reason: configmaps \"web\" is forbidden"
		op.SyncResult.Resources = []ResourceResult{
			{Version: "v1", Kind: "Namespace", Name: "acme-web", Status: "Synced", Message: "namespace/acme-web created"},
			{Version: "v1", Kind: "ConfigMap", Namespace: "acme-web", Name: "web", Status: resultSyncFailed, Message: "configmaps \"web\" is forbidden"},
		}
		a.Status.Resources[0] = ResourceStatus{Version: "v1", Kind: "Namespace", Name: "acme-web", Status: SyncSynced, Health: &HealthStatus{Status: HealthHealthy}}
		a.Status.Conditions = []Condition{{Type: "SyncError", Message: "Failed sync attempt to " + rev + ": one or more objects failed to apply"}}
	default:
		op.Phase = PhaseSucceeded
		op.Message = "successfully synced (all tasks run)"
		a.Status.Sync.Status = SyncSynced
		a.Status.Health = HealthStatus{Status: HealthHealthy}
		for i := range a.Status.Resources {
			a.Status.Resources[i].Status = SyncSynced
			a.Status.Resources[i].Health = &HealthStatus{Status: HealthHealthy}
		}
		if f.mode == degrade {
			a.Status.Health = HealthStatus{Status: HealthDegraded, Message: "ConfigMap is bad"}
			a.Status.Resources[1].Health = &HealthStatus{Status: HealthDegraded, Message: "ConfigMap is bad"}
		}
	}
}

func (f *fakeArgoCD) sync(w http.ResponseWriter, r *http.Request) {
	var in syncRequest
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		grpcError(w, http.StatusBadRequest, 3, err.Error())
		return
	}
	f.syncs = append(f.syncs, in)
	a := f.lookup(w, r, in.Project)
	if a == nil {
		return
	}
	if a.Operation != nil || (a.Status.OperationState != nil && a.Status.OperationState.Phase == PhaseRunning) {
		grpcError(w, f.inProgressStatus, 9, "another operation is already in progress")
		return
	}
	a.Operation = &Operation{Sync: &SyncOperation{Revision: in.Revision, Prune: in.Prune}}
	f.steps[a.Metadata.Name] = 0
	writeJSON(w, a)
}

func (f *fakeArgoCD) terminate(w http.ResponseWriter, r *http.Request) {
	a := f.lookup(w, r, r.URL.Query().Get("project"))
	if a == nil {
		return
	}
	if a.Operation == nil || a.Status.OperationState == nil {
		grpcError(w, http.StatusBadRequest, 3, "Unable to terminate operation. No operation is in progress")
		return
	}
	f.terminated++
	a.Operation = nil
	a.Status.OperationState.Phase = PhaseFailed
	a.Status.OperationState.Message = "Operation terminated"
	writeJSON(w, map[string]any{})
}

func (f *fakeArgoCD) delete(w http.ResponseWriter, r *http.Request) {
	a := f.lookup(w, r, r.URL.Query().Get("project"))
	if a == nil {
		return
	}
	if r.URL.Query().Get("cascade") == "true" && a.Metadata.DeletionTimestamp == "" {
		a.Metadata.DeletionTimestamp = time.Now().UTC().Format(time.RFC3339)
		f.gone[a.Metadata.Name] = f.deleteSteps
	}
	writeJSON(w, map[string]any{})
}

func (f *fakeArgoCD) tree(w http.ResponseWriter, r *http.Request) {
	a := f.lookup(w, r, r.URL.Query().Get("project"))
	if a == nil {
		return
	}
	tree := ResourceTree{}
	for _, res := range a.Status.Resources {
		tree.Nodes = append(tree.Nodes, ResourceNode{Group: res.Group, Version: res.Version, Kind: res.Kind,
			Namespace: res.Namespace, Name: res.Name, UID: "uid-" + strings.ToLower(res.Kind), Health: res.Health})
	}
	writeJSON(w, tree)
}

// put stores an app of acme/web directly, as if slipway created it earlier: its labels name
// the instance and, unless a says otherwise, it is in project default (as before tenants had projects).
func (f *fakeArgoCD) put(a Application) {
	if a.Metadata.Labels == nil {
		a.Metadata.Labels = map[string]string{LabelTenant: "acme", LabelName: "web"}
	}
	if a.Spec.Project == "" {
		a.Spec.Project = DefaultProject
	}
	f.putAsIs(a)
}

// putAsIs stores an app exactly as given, as someone other than slipway would make it.
func (f *fakeArgoCD) putAsIs(a Application) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.apps[a.Metadata.Name] = &a
}

func (f *fakeArgoCD) getProject(w http.ResponseWriter, r *http.Request) {
	p, ok := f.projects[r.PathValue("name")]
	if !ok {
		grpcError(w, http.StatusNotFound, 5, fmt.Sprintf("appprojects.argoproj.io %q not found", r.PathValue("name")))
		return
	}
	writeJSON(w, p)
}

func (f *fakeArgoCD) createProject(w http.ResponseWriter, r *http.Request) {
	var in projectBody
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		grpcError(w, http.StatusBadRequest, 3, err.Error())
		return
	}
	name := in.Project.Metadata.Name
	if _, ok := f.projects[name]; ok {
		grpcError(w, http.StatusConflict, 6, fmt.Sprintf("appprojects.argoproj.io %q already exists", name))
		return
	}
	in.Project.Metadata.ResourceVersion = "1"
	f.projects[name] = &in.Project
	writeJSON(w, in.Project)
}

// updateProject refuses a write at a stale resourceVersion, as the kube API does.
func (f *fakeArgoCD) updateProject(w http.ResponseWriter, r *http.Request) {
	var in projectBody
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		grpcError(w, http.StatusBadRequest, 3, err.Error())
		return
	}
	cur, ok := f.projects[r.PathValue("name")]
	if !ok {
		grpcError(w, http.StatusNotFound, 5, "not found")
		return
	}
	if f.projectRaces > 0 {
		f.projectRaces--
		cur.Metadata.ResourceVersion += "x"
	}
	if in.Project.Metadata.ResourceVersion != cur.Metadata.ResourceVersion && len(in.Project.Spec.Destinations) <= len(cur.Spec.Destinations) {
		// argocd-server checks first that the write drops no destination an app uses.
		grpcError(w, http.StatusBadRequest, 3, "as a result of project update 1 applications destination became invalid")
		return
	}
	if in.Project.Metadata.ResourceVersion != cur.Metadata.ResourceVersion {
		grpcError(w, http.StatusConflict, 10, "Operation cannot be fulfilled on appprojects.argoproj.io: the object has been modified; please apply your changes to the latest version and try again")
		return
	}
	in.Project.Metadata.ResourceVersion = cur.Metadata.ResourceVersion + "1"
	f.projects[in.Project.Metadata.Name] = &in.Project
	writeJSON(w, in.Project)
}

func (f *fakeArgoCD) project(name string) (AppProject, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.projects[name]
	if !ok {
		return AppProject{}, false
	}
	return *p, true
}

func (f *fakeArgoCD) app(name string) (Application, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.apps[name]
	if !ok {
		return Application{}, false
	}
	return *a, true
}

func (f *fakeArgoCD) callList() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// count returns how many calls started with prefix ("GET /api/v1/applications/acme-web?").
func (f *fakeArgoCD) count(prefix string) int {
	n := 0
	for _, c := range f.callList() {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}
