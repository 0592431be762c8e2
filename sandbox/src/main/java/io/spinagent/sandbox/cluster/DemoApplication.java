package io.spinagent.sandbox.cluster;

import io.spinagent.testkit.kubernetes.KubernetesApiServer;

/**
 * The application the simulated cluster starts with: a Deployment with a Service selecting its Pods
 * and an Ingress in front of the Service, annotated as Spinnaker's deploy stage would annotate them
 * for the application {@value #APPLICATION} (moniker application and cluster). Its ReplicaSet and
 * Pods are made by the {@link DemoController}, as a real cluster's controllers would, on the {@link
 * DemoNodes}.
 */
public final class DemoApplication {

  public static final String APPLICATION = "shop";
  public static final String NAMESPACE = "default";
  public static final String DEPLOYMENT = "frontend";
  public static final int REPLICAS = 2;

  /**
   * The Service's cluster IP, from the service range kind and kubeadm use (10.96.0.0/12): the
   * simulated cluster allocates none, so the seed carries what a real API server would have given.
   */
  public static final String SERVICE_IP = "10.96.0.20";

  private DemoApplication() {}

  /** Creates the objects in the server's store (before anyone watches, so no client is needed). */
  public static void seed(KubernetesApiServer cluster) {
    cluster.createObject(deployment());
    cluster.createObject(service());
    cluster.createObject(ingress());
  }

  static String deployment() {
    return """
           apiVersion: apps/v1
           kind: Deployment
           metadata:
             name: %1$s
             namespace: %2$s
             labels: {app: %3$s, tier: frontend}
             annotations:
               moniker.spinnaker.io/application: %3$s
               moniker.spinnaker.io/cluster: deployment %1$s
           spec:
             replicas: %4$d
             selector:
               matchLabels: {app: %3$s, tier: frontend}
             template:
               metadata:
                 labels: {app: %3$s, tier: frontend}
                 annotations:
                   moniker.spinnaker.io/application: %3$s
                   moniker.spinnaker.io/cluster: deployment %1$s
               spec:
                 containers:
                   - name: web
                     image: nginx:1.27
                     ports: [{containerPort: 80}]
           """
        .formatted(DEPLOYMENT, NAMESPACE, APPLICATION, REPLICAS);
  }

  static String service() {
    return """
           apiVersion: v1
           kind: Service
           metadata:
             name: %1$s
             namespace: %2$s
             labels: {app: %3$s}
             annotations:
               moniker.spinnaker.io/application: %3$s
           spec:
             type: ClusterIP
             clusterIP: %4$s
             clusterIPs: [%4$s]
             selector: {app: %3$s, tier: frontend}
             ports: [{port: 80, targetPort: 80, protocol: TCP}]
           """
        .formatted(DEPLOYMENT, NAMESPACE, APPLICATION, SERVICE_IP);
  }

  static String ingress() {
    return """
           apiVersion: networking.k8s.io/v1
           kind: Ingress
           metadata:
             name: %1$s
             namespace: %2$s
             labels: {app: %3$s}
             annotations:
               moniker.spinnaker.io/application: %3$s
           spec:
             rules:
               - host: %3$s.example.com
                 http:
                   paths:
                     - path: /
                       pathType: Prefix
                       backend:
                         service: {name: %1$s, port: {number: 80}}
           """
        .formatted(DEPLOYMENT, NAMESPACE, APPLICATION);
  }
}
