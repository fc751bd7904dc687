// An app that adopts the pipeline configures its memory tier with the engine's
// types (limits, policies, pressure reactions): they come with it.
@_exported import CacheEngine
