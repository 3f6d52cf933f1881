package terraform

// terraformConn is the pg backend's connection for ws's terraform.
func (r *Runner) terraformConn(ws Workspace) (string, error) {
	return r.pgConn, nil
}
