package fakegithub

import (
	"net/http"
)

// account is a GitHub user: its numeric ID stays when the login is renamed.
type account struct {
	id    int64
	login string
}

// AddUser creates a GitHub account (once per login) and returns its ID.
func (s *Server) AddUser(login string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addUser(login).id
}

func (s *Server) addUser(login string) *account {
	if s.users == nil {
		s.users = map[string]*account{}
	}
	if a := s.users[login]; a != nil {
		return a
	}
	a := &account{id: int64(1000 + len(s.users)), login: login}
	s.users[login] = a
	return a
}

// Grant makes login (created if needed) a collaborator of owner/name with permission admin,
// write or read, and returns the account's ID; "none" removes the grant.
func (s *Server) Grant(owner, name, login, permission string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.addUser(login)
	rp := s.repos[owner+"/"+name]
	if rp.collaborators == nil {
		rp.collaborators = map[string]string{}
	}
	if permission == "none" {
		delete(rp.collaborators, login)
	} else {
		rp.collaborators[login] = permission
	}
	return a.id
}

// getPermission answers GET /repos/{owner}/{repo}/collaborators/{username}/permission as
// GitHub documents it: {permission: admin|write|read|none, role_name, user}; 404 for an
// unknown login. The fake's repositories are private, so an account with no grant has none.
func (s *Server) getPermission(w http.ResponseWriter, r *http.Request, rp *repo) {
	a := s.users[r.PathValue("username")]
	if a == nil {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	p := rp.collaborators[a.login]
	if p == "" {
		p = "none"
	}
	writeJSON(w, http.StatusOK, map[string]any{"permission": p, "role_name": p,
		"user": map[string]any{"login": a.login, "id": a.id, "type": "User"}})
}
