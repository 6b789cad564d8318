"""The mechanisms any agent composes: working memory, reproduction, verification, candidate patches, regression tests."""
