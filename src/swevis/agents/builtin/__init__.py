"""The built-in agents, one module each (mini, PLB, LET, Prometheus): each declares its AgentKind and composes tools and mechanisms."""
