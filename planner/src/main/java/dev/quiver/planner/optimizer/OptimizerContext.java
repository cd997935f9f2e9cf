package dev.quiver.planner.optimizer;

import org.apache.arrow.memory.BufferAllocator;

/** What rules may use: the query's allocator (constant folding evaluates on real Arrow vectors). */
public record OptimizerContext(BufferAllocator allocator) {}
