package dev.quiver.bench;

import java.util.Arrays;

/** {@code java -jar bench/target/quiver-bench.jar planning|pruning|floor|load|tpch|tpcds|scaling|profile|scaleout|inlist|h2o|jmh [options]}. */
public final class Bench {
  private Bench() {}

  public static void main(String[] args) throws Exception {
    dev.quiver.server.AllocatorTuning.apply(); // as the server does, before any Arrow allocation
    String what = args.length == 0 ? "planning" : args[0];
    String[] rest = args.length == 0 ? args : Arrays.copyOfRange(args, 1, args.length);
    switch (what) {
      case "planning" -> PlanningBenchmark.main(rest);
      case "pruning" -> PruningBenchmark.main(rest);
      case "tpch" -> TpchBenchmark.main(rest);
      case "tpcds" -> TpcdsBenchmark.main(rest);
      case "load" -> LoadBenchmark.main(rest);
      case "floor" -> FloorBenchmark.main(rest);
      case "scaling" -> ScalingBenchmark.main(rest);
      case "profile" -> ProfileBenchmark.main(rest);
      case "scaleout" -> ScaleOutBenchmark.main(rest);
      case "inlist" -> InListBenchmark.main(rest);
      case "h2o" -> H2oBenchmark.main(rest);
      case "jmh" -> dev.quiver.bench.jmh.JmhMain.main(rest);
      default -> {
        System.err.println("usage: java -jar bench/target/quiver-bench.jar planning [targetNodes] [runs]");
        System.err.println("       java -Xmx8g -jar bench/target/quiver-bench.jar pruning [--sf 1] [--runs 5] [--sections all|scan|join] [--out bench/results]");
        System.err.println("       java -jar bench/target/quiver-bench.jar load [--clients 4,16,64] [--queries-per-client 25] [--out bench/results]");
        System.err.println("       java -jar bench/target/quiver-bench.jar floor [--servers label=host:port[,…]] [--baseline] [--rounds 200] [--out DIR]");
        System.err.println("       java -Xmx8g -jar bench/target/quiver-bench.jar tpch [--data DIR | --sf 1] [--runs 5] [--max-warm-up 15] [--out bench/results]");
        System.err.println("       java -Xmx8g -jar bench/target/quiver-bench.jar tpcds [--data DIR | --sf 1] [--runs 5] [--max-warm-up 15] [--out bench/results]");
        System.err.println("       java -Xmx12g -jar bench/target/quiver-bench.jar scaling [--sfs 1,10] [--layouts natural] [--runs 3] [--server-memory 4g] [--out bench/results]");
        System.err.println("       java -Xmx8g -jar bench/target/quiver-bench.jar profile [--sf 1] [--layout shuffled] [--runs 20] [--out bench/results]");
        System.err.println("       java -Xmx6g -jar bench/target/quiver-bench.jar scaleout [--sf 1] [--runs 3] [--max-warm-up 3] [--k 2,4] [--out bench/results]");
        System.err.println("       java -jar bench/target/quiver-bench.jar inlist [--runs 5]");
        System.err.println("       java -Xmx8g -jar bench/target/quiver-bench.jar h2o [--rows 10000000 | --data DIR] [--runs 5] [--queries q1,q7] [--out bench/results]");
        System.err.println("       java -jar bench/target/quiver-bench.jar jmh [--out bench/results] [JMH options, -h for them]");
        System.exit(2);
      }
    }
  }
}
