// The `compare` formats for clients that react: a ClientsTrace written as JSON or CSV.
//
// The same shapes as writeJson / writeCsv, plus, per sequence entry or row, the request it is an
// attempt of, its client and its attempt number, and per algorithm a "clients" object.
#pragma once

#include "clients.h"
#include "scenario.h"

#include <ostream>

namespace ratelab {

// writeClientsJson writes {"input": {..., "clients": {settings}}, "results": {ID: {allowed,
// denied, delayed, max_in_window, overshoot, memory, clients: {requests, attempts, succeeded,
// gave_up, amplification, latency: {mean, p50, p99, max}, memory: {keys, per_key: {bytes,
// entries}, total: {bytes, entries}}}, sequence: [{request, client, attempt, t, allowed, delay,
// remaining, retry_after, level}, ...]}}}. Counts in "allowed"/"denied" are of attempts;
// latencies are exact seconds; memory.per_key is the largest key's state.
void writeClientsJson(std::ostream& out, const Scenario& scenario, const ClientsTrace& trace);

// writeClientsCsv writes one row per attempt and algorithm, in decision order:
// algorithm,request,client,attempt,t,allowed,delay,remaining,retry_after,level
void writeClientsCsv(std::ostream& out, const ClientsTrace& trace);

} // namespace ratelab
