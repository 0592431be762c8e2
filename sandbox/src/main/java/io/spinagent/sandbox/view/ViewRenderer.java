package io.spinagent.sandbox.view;

import io.spinagent.sandbox.view.CacheView.Application;
import io.spinagent.sandbox.view.CacheView.Cluster;
import io.spinagent.sandbox.view.CacheView.Instance;
import io.spinagent.sandbox.view.CacheView.LoadBalancer;
import io.spinagent.sandbox.view.CacheView.ServerGroup;

/**
 * The live view as text: one line per application, cluster, server group, instance, load balancer.
 */
public final class ViewRenderer {

  private static final String BOLD = "\u001b[1m";
  private static final String GREEN = "\u001b[32m";
  private static final String YELLOW = "\u001b[33m";
  private static final String CYAN = "\u001b[36m";
  private static final String RESET = "\u001b[0m";

  private final boolean color;

  public ViewRenderer(boolean color) {
    this.color = color;
  }

  /** The view without a timestamp, so equal cache contents render equally. */
  public String render(CacheView view) {
    StringBuilder out = new StringBuilder();
    if (view.applications().isEmpty()) {
      out.append("  (no applications in the cache yet)\n");
    }
    for (Application app : view.applications()) {
      out.append("  ").append(paint(BOLD, "application " + app.name())).append('\n');
      for (Cluster cluster : app.clusters()) {
        out.append("    cluster ")
            .append(paint(CYAN, cluster.name()))
            .append("  (account ")
            .append(cluster.account());
        if (!cluster.managers().isEmpty()) {
          out.append(", managed by ").append(String.join(", ", cluster.managers()));
        }
        out.append(")\n");
        for (ServerGroup sg : cluster.serverGroups()) {
          out.append("      server group ")
              .append(sg.kind())
              .append(' ')
              .append(paint(BOLD, sg.name()))
              .append("  ")
              .append(sg.instances().size())
              .append(sg.instances().size() == 1 ? " instance" : " instances");
          if (sg.desired() != null) {
            out.append(" (desired ").append(sg.desired()).append(')');
          }
          if (!sg.loadBalancers().isEmpty()) {
            out.append("  load balancers: service ")
                .append(String.join(", service ", sg.loadBalancers()));
          }
          out.append('\n');
          for (Instance instance : sg.instances()) {
            String phase = instance.phase() == null ? "Unknown" : instance.phase();
            out.append("        instance pod ")
                .append(instance.name())
                .append("  ")
                .append(paint("Running".equals(phase) ? GREEN : YELLOW, phase))
                .append('\n');
          }
        }
      }
      for (LoadBalancer lb : app.loadBalancers()) {
        out.append("    load balancer ")
            .append(lb.kind())
            .append(' ')
            .append(paint(CYAN, lb.name()));
        if (!lb.backends().isEmpty()) {
          out.append("  -> service ").append(String.join(", service ", lb.backends()));
        }
        out.append('\n');
      }
    }
    return out.toString();
  }

  private String paint(String code, String text) {
    return color ? code + text + RESET : text;
  }
}
