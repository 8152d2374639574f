#!/bin/sh
# Registers the namespace and the search attributes that make Nocturne runs findable in the UI.
set -eu
temporal operator namespace describe --namespace "$TEMPORAL_NAMESPACE" >/dev/null 2>&1 \
  || temporal operator namespace create --namespace "$TEMPORAL_NAMESPACE" --retention 30d
for attr in NocturneTenant NocturneTrigger NocturneStatus; do
  temporal operator search-attribute create --namespace "$TEMPORAL_NAMESPACE" --name "$attr" --type Keyword || true
done
