package server

// addPrompts registers the prompts.
func (s *Server) addPrompts() {}
