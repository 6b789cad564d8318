"""What an agent is shown: commands read as the shell does, action classes, code windows as text or rendered pages."""
