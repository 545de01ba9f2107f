// Sketches: fixed-error summaries of many values in bounded memory, mergeable, and serialisable
// to a compact versioned byte form. Each is the state of one aggregate (accumulators.cc), in a
// file pair of its own:
//   QuantileSketch   quantiles with relative value error <= 1% (DDSketch: log-sized buckets;
//                    agg/quantile_sketch.h)
//   DistinctSketch   distinct counts with standard error ~0.8% (HyperLogLog, 2^14 registers,
//                    exact below kSparseMax values; agg/distinct_sketch.h)
//   TopKSketch       the most frequent values with an overestimate bound (Space-Saving;
//                    agg/topk_sketch.h)
// None reads a clock, a hash seed or an address: equal inputs give equal states and bytes.
#pragma once

#include "agg/distinct_sketch.h"
#include "agg/quantile_sketch.h"
#include "agg/topk_sketch.h"
