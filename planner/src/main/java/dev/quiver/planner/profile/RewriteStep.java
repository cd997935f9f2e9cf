package dev.quiver.planner.profile;

/** One simplifier rewrite that changed a predicate: the rule's simple class name, the predicate before and after. */
public record RewriteStep(String rule, String before, String after) {}
