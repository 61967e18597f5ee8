package hooks

import "context"

func handleSessionStart(ctx context.Context, s *session, p *Payload) (Response, error) {
	return Response{}, nil
}

func handleUserPrompt(ctx context.Context, s *session, p *Payload) (Response, error) {
	return Response{}, nil
}

func handleToolCall(ctx context.Context, s *session, p *Payload) (Response, error) {
	s.w.ToolCalls++
	return Response{}, nil
}

func handleStop(ctx context.Context, s *session, p *Payload) (Response, error) {
	return Response{}, nil
}

func handlePreCompact(ctx context.Context, s *session, p *Payload) (Response, error) {
	return Response{}, nil
}

func handleSessionEnd(ctx context.Context, s *session, p *Payload) (Response, error) {
	return Response{}, nil
}
