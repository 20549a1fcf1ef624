// The ObjectGraph module: schema, queue-confined object context, validated
// saves and save notifications. It is built in issue #4; until then it only
// re-exports nothing and exists so that the package has its final layering.
