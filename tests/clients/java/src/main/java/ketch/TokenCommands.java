package ketch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateDelegationTokenOptions;
import org.apache.kafka.clients.admin.DescribeDelegationTokenOptions;
import org.apache.kafka.clients.admin.ExpireDelegationTokenOptions;
import org.apache.kafka.clients.admin.RenewDelegationTokenOptions;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.token.delegation.DelegationToken;
import org.apache.kafka.common.security.token.delegation.TokenInformation;
import org.apache.kafka.common.utils.SecurityUtils;

/**
 * The delegation-token commands of DRIVERS.md (Admin): create-token, renew-token,
 * expire-token, describe-tokens.
 */
final class TokenCommands {
  private TokenCommands() {}

  private static List<KafkaPrincipal> principals(JsonNode args, String key) {
    List<KafkaPrincipal> out = new ArrayList<>();
    for (String p : Json.stringList(args, key)) {
      out.add(SecurityUtils.parseKafkaPrincipal(p));
    }
    return out;
  }

  private static ObjectNode json(DelegationToken t) {
    TokenInformation i = t.tokenInfo();
    ObjectNode o = Json.object();
    o.put("token_id", i.tokenId());
    o.set("hmac", Json.bytes(t.hmac()));
    o.put("owner", i.ownerAsString());
    o.put("requester", i.tokenRequester() == null ? null : i.tokenRequester().toString());
    ArrayNode renewers = o.putArray("renewers");
    i.renewersAsString().forEach(renewers::add);
    o.put("issue_ms", i.issueTimestamp());
    o.put("expiry_ms", i.expiryTimestamp());
    o.put("max_ms", i.maxTimestamp());
    return o;
  }

  static ObjectNode create(Properties base, ObjectNode args) throws Exception {
    CreateDelegationTokenOptions opts = new CreateDelegationTokenOptions()
        .maxLifetimeMs(Json.longArg(args, "max_lifetime_ms", -1));
    if (args.hasNonNull("renewers")) {
      opts.renewers(principals(args, "renewers"));
    }
    String owner = Json.stringArg(args, "owner", null);
    if (owner != null) {
      opts.owner(SecurityUtils.parseKafkaPrincipal(owner));
    }
    try (Admin admin = Admin.create(Driver.clientConfig(base, args))) {
      ObjectNode root = Json.object();
      try {
        root.set("token", json(admin.createDelegationToken(opts).delegationToken().get()));
        root.putNull("error");
      } catch (ExecutionException e) {
        root.put("error", Json.errorName(e));
      }
      return root;
    }
  }

  static ObjectNode renewOrExpire(Properties base, ObjectNode args, boolean renew) throws Exception {
    byte[] hmac = Json.bytesArg(args.get("hmac"), "hmac");
    long period = Json.longArg(args, "period_ms", -1);
    try (Admin admin = Admin.create(Driver.clientConfig(base, args))) {
      ObjectNode root = Json.object();
      try {
        long expiry = renew
            ? admin.renewDelegationToken(hmac, new RenewDelegationTokenOptions().renewTimePeriodMs(period))
                .expiryTimestamp().get()
            : admin.expireDelegationToken(hmac, new ExpireDelegationTokenOptions().expiryTimePeriodMs(period))
                .expiryTimestamp().get();
        root.put("expiry_ms", expiry);
        root.putNull("error");
      } catch (ExecutionException e) {
        root.put("error", Json.errorName(e));
      }
      return root;
    }
  }

  static ObjectNode describe(Properties base, ObjectNode args) throws Exception {
    DescribeDelegationTokenOptions opts = new DescribeDelegationTokenOptions();
    if (args.hasNonNull("owners")) {
      opts.owners(principals(args, "owners"));
    }
    try (Admin admin = Admin.create(Driver.clientConfig(base, args))) {
      ObjectNode root = Json.object();
      ArrayNode tokens = root.putArray("tokens");
      try {
        for (DelegationToken t : admin.describeDelegationToken(opts).delegationTokens().get()) {
          tokens.add(json(t));
        }
        root.putNull("error");
      } catch (ExecutionException e) {
        root.put("error", Json.errorName(e));
      }
      return root;
    }
  }
}
