#!/bin/sh
# Registers the namespace and the search attributes that make Nocturne runs findable in the UI.
# It runs in the admin-tools image (no node), so it carries the attributes itself: name=type pairs
# equal to src/contracts/search-attributes.ts (test/unit/stack/search-attributes.test.ts keeps them so).
set -eu

# The server image has no CLI to check itself; wait here (up to 5 minutes) until it serves.
tries=0
until temporal operator cluster health --address "$TEMPORAL_ADDRESS" 2>/dev/null | grep -q SERVING; do
  tries=$((tries + 1))
  if [ "$tries" -ge 150 ]; then
    echo "temporal at $TEMPORAL_ADDRESS did not become healthy within 5 minutes" >&2
    exit 1
  fi
  sleep 2
done

SEARCH_ATTRIBUTES="NocturneTenant=Keyword NocturneTrigger=Keyword NocturneStatus=Keyword NocturneChangedNotes=KeywordList"

temporal operator namespace describe --namespace "$TEMPORAL_NAMESPACE" >/dev/null 2>&1 \
  || temporal operator namespace create --namespace "$TEMPORAL_NAMESPACE" --retention 30d
for attr in $SEARCH_ATTRIBUTES; do
  temporal operator search-attribute create --namespace "$TEMPORAL_NAMESPACE" --name "${attr%%=*}" --type "${attr#*=}" \
    || true
done
