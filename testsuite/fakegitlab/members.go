package fakegitlab

import (
	"net/http"
	"strconv"
)

// member is a GitLab user and, when it is a member of the project, its access level.
type member struct {
	id       int
	username string
	level    int // 0: not a member; 10 guest, 20 reporter, 30 developer, 40 maintainer, 50 owner
}

// AddMember creates the user username (once) with access level on the project (0: a user who
// is not a member) and returns its ID.
func (s *Server) AddMember(username string, level int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users == nil {
		s.users = map[string]*member{}
	}
	m := s.users[username]
	if m == nil {
		m = &member{id: 100 + len(s.users), username: username}
		s.users[username] = m
	}
	m.level = level
	return m.id
}

// listUsers answers GET /users?username=NAME as GitLab does: a list of zero or one user.
func (s *Server) listUsers(w http.ResponseWriter, r *http.Request) {
	out := []map[string]any{}
	if m := s.users[r.URL.Query().Get("username")]; m != nil {
		out = append(out, map[string]any{"id": m.id, "username": m.username, "state": "active"})
	}
	writeJSON(w, http.StatusOK, out)
}

// getMember answers GET /projects/:id/members/all/:user_id: the member with its access level
// (inherited included), or 404 when the user is not a member.
func (s *Server) getMember(w http.ResponseWriter, userID string) {
	id, _ := strconv.Atoi(userID)
	for _, m := range s.users {
		if m.id == id && m.level > 0 {
			writeJSON(w, http.StatusOK, map[string]any{"id": m.id, "username": m.username, "state": "active", "access_level": m.level})
			return
		}
	}
	writeError(w, http.StatusNotFound, "404 Not found")
}
