/*
 * Copyright 2026 the pgque-kafka-connect authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.pgque.connect.plugin;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.annotation.JsonProperty;

import java.io.File;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Reads Strimzi resources into Strimzi's own API model and checks them the way the model's
 * annotations describe its API version (the annotations Strimzi generates its CRD schemas from):
 * every field known to the model, present in that version, given where the version requires it,
 * matching its pattern, and no Connect worker setting the resource's spec may not set. Strimzi 1.x
 * builds its model for Java 21, so {@link StrimziModelCheck} runs this in a child JVM of Java 21 or
 * newer; it prints, as JSON, each resource's problems and the model's view of it.
 *
 * <p>Arguments: the YAML files to read.
 */
public final class StrimziModel {

    private static final String GROUP = "kafka.strimzi.io/";
    private static final List<String> VERSION_ORDER = List.of("v1alpha1", "v1beta1", "v1beta2", "v1");
    private static final Map<String, String> MODEL = Map.of(
            "KafkaConnect", "io.strimzi.api.kafka.model.connect.KafkaConnect",
            "KafkaConnector", "io.strimzi.api.kafka.model.connector.KafkaConnector");
    private static final String ANNOTATIONS = "io.strimzi.crdgenerator.annotations.";

    private final ObjectMapper yaml = new ObjectMapper(new YAMLFactory())
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);
    private final ObjectMapper json = new ObjectMapper();
    private final List<String> problems = new ArrayList<>();
    private String version;

    private StrimziModel() {
    }

    public static void main(String[] args) throws Exception {
        ObjectMapper json = new ObjectMapper();
        ArrayNode out = json.createArrayNode();
        for (String file : args) {
            StrimziModel model = new StrimziModel();
            for (JsonNode document : model.yaml.readValues(model.yaml.getFactory().createParser(new File(file)), JsonNode.class).readAll()) {
                if (document.path("apiVersion").asText().startsWith(GROUP)) {
                    out.add(model.check(file, document));
                }
            }
        }
        System.out.println(json.writeValueAsString(out));
    }

    private ObjectNode check(String file, JsonNode document) throws Exception {
        problems.clear();
        String kind = document.path("kind").asText();
        version = document.path("apiVersion").asText().substring(GROUP.length());
        ObjectNode result = json.createObjectNode().put("file", file).put("kind", kind).put("version", version);
        String className = MODEL.get(kind);
        if (className == null) {
            problems.add(file + ": no model for kind " + kind);
        } else {
            Class<?> type = Class.forName(className);
            @SuppressWarnings("unchecked")
            List<String> served = (List<String>) type.getField("VERSIONS").get(null);
            if (!served.contains(version)) {
                problems.add(kind + " " + version + ": this Strimzi serves only " + served);
            }
            Object resource = yaml.treeToValue(document, type);
            walk(kind, resource, document);
            if (kind.equals("KafkaConnect")) {
                forbiddenWorkerSettings(type, document.path("spec").path("config"));
                result.put("serviceAccount", (String) Class.forName("io.strimzi.api.kafka.model.connect.KafkaConnectResources")
                        .getMethod("serviceAccountName", String.class).invoke(null, document.path("metadata").path("name").asText()));
            }
            result.set("model", json.valueToTree(resource));
        }
        ArrayNode list = result.putArray("problems");
        problems.forEach(list::add);
        return result;
    }

    /** Checks a bean of the model against the part of the YAML it was read from, and goes down into its fields. */
    private void walk(String path, Object bean, JsonNode node) throws Exception {
        if (bean == null) {
            return;
        }
        if (bean instanceof Collection<?> items) {
            int i = 0;
            for (Object item : items) {
                walk(path + "[" + i + "]", item, node.path(i++));
            }
            return;
        }
        if (!bean.getClass().getName().startsWith("io.strimzi.")) {
            return;
        }
        Method unknown = findMethod(bean.getClass(), "getAdditionalProperties");
        if (unknown != null && unknown.invoke(bean) instanceof Map<?, ?> extra && !extra.isEmpty()) {
            problems.add(path + ": fields Strimzi's model does not know: " + extra.keySet());
        }
        BeanDescription description = json.getSerializationConfig().introspect(json.constructType(bean.getClass()));
        for (BeanPropertyDefinition property : description.findProperties()) {
            AnnotatedMember getter = property.getAccessor();
            if (getter == null || property.getName().equals("additionalProperties")) {
                continue;
            }
            String where = path + "." + property.getName();
            boolean given = node.has(property.getName());
            if (!given && required(getter)) {
                problems.add(where + " is required in " + version);
            }
            if (given && !present(getter)) {
                problems.add(where + " is not part of " + version);
            }
            Annotation pattern = annotation(getter, "Pattern");
            if (given && pattern != null && !node.path(property.getName()).asText().matches((String) value(pattern))) {
                problems.add(where + " does not match " + value(pattern) + ": " + node.path(property.getName()).asText());
            }
            if (given && !property.getName().equals("metadata")) {
                walk(where, getter.getValue(bean), node.path(property.getName()));
            }
        }
    }

    private boolean required(AnnotatedMember getter) {
        JsonProperty json = getter.getAnnotation(JsonProperty.class);
        Annotation inVersions = annotation(getter, "RequiredInVersions");
        return (json != null && json.required()) || (inVersions != null && covers((String) value(inVersions)));
    }

    private boolean present(AnnotatedMember getter) {
        Annotation inVersions = annotation(getter, "PresentInVersions");
        return inVersions == null || covers((String) value(inVersions));
    }

    /** Whether a range such as {@code v1+}, {@code v1beta2} or {@code v1beta1-v1beta2} holds the resource's version. */
    private boolean covers(String range) {
        int at = VERSION_ORDER.indexOf(version);
        for (String part : range.split(",")) {
            String r = part.trim();
            if (r.endsWith("+") && at >= VERSION_ORDER.indexOf(r.substring(0, r.length() - 1))) {
                return true;
            }
            String[] bounds = r.split("-");
            if (bounds.length == 2 && at >= VERSION_ORDER.indexOf(bounds[0]) && at <= VERSION_ORDER.indexOf(bounds[1])) {
                return true;
            }
            if (r.equals(version) || r.equals("all")) {
                return true;
            }
        }
        return false;
    }

    /** Worker settings a KafkaConnect's spec.config may not hold (the model's FORBIDDEN_PREFIXES, less its exceptions). */
    private void forbiddenWorkerSettings(Class<?> type, JsonNode config) throws Exception {
        Class<?> spec = Class.forName(type.getPackageName() + ".KafkaConnectSpec");
        List<String> forbidden = Arrays.stream(((String) spec.getField("FORBIDDEN_PREFIXES").get(null)).split(","))
                .map(String::trim).toList();
        List<String> allowed = Arrays.stream(((String) spec.getField("FORBIDDEN_PREFIX_EXCEPTIONS").get(null)).split(","))
                .map(String::trim).toList();
        config.fieldNames().forEachRemaining(key -> {
            if (forbidden.stream().anyMatch(key::startsWith) && !allowed.contains(key)) {
                problems.add("KafkaConnect.spec.config." + key + ": Strimzi sets it itself (forbidden prefixes: " + forbidden + ")");
            }
        });
    }

    private static Annotation annotation(AnnotatedMember member, String simpleName) {
        if (!(member.getAnnotated() instanceof Method method)) {
            return null;
        }
        for (Annotation a : method.getAnnotations()) {
            if (a.annotationType().getName().equals(ANNOTATIONS + simpleName)) {
                return a;
            }
        }
        return null;
    }

    private static Object value(Annotation annotation) {
        try {
            return annotation.annotationType().getMethod("value").invoke(annotation);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Method findMethod(Class<?> type, String name) {
        try {
            return type.getMethod(name);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }
}
