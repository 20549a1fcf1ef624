// The ContextWatching module: ContextWatcher and, later, ObjectMonitor and
// ListMonitor. It is built in issue #5; until then it is empty and exists so
// that the package has its final layering.
