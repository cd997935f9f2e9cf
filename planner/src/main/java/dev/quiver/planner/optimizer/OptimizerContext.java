package dev.quiver.planner.optimizer;

import dev.quiver.planner.kernel.EvalContext;
import org.apache.arrow.memory.BufferAllocator;

/**
 * What rules may use: the query's allocator (constant folding evaluates on real Arrow vectors) and
 * evaluation context (query start for stable functions, session time zone).
 */
public record OptimizerContext(BufferAllocator allocator, EvalContext eval) {}
