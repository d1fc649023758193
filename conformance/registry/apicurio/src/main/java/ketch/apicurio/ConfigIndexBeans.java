package ketch.apicurio;

import io.apicurio.common.apps.config.DynamicConfigPropertyList;
import java.util.List;
import javax.enterprise.context.ApplicationScoped;
import javax.enterprise.inject.Produces;

// Stands in for the bean that apicurio-common-app-components-config-index's
// deployment module (not on Maven Central) would generate: no dynamic configs.
@ApplicationScoped
public class ConfigIndexBeans {
    @Produces
    @ApplicationScoped
    DynamicConfigPropertyList dynamicConfigProperties() {
        return new DynamicConfigPropertyList(List.of());
    }
}
