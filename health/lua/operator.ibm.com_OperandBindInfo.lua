-- Argo CD health check for operator.ibm.com/OperandBindInfo (odlm-render, health/), for
-- clusters that keep the ODLM controller. Completed (the Secrets and ConfigMaps were copied
-- to the requesting namespaces) is Healthy; Failed is Degraded; Initialized, Updating and
-- "Waiting for Secret and/or Configmap from provider" are Progressing.
-- Uses only Lua's base and table libraries and checks every field's type.

local progressing = {
  Initialized = true,
  Updating = true,
  ["Waiting for Secret and/or Configmap from provider"] = true,
}

local function assess(obj)
  local status = tbl(obj.status)
  local phase = phaseOf(status)
  if phase == "" then
    return "Progressing", "Waiting for ODLM to reconcile the OperandBindInfo"
  end

  if phase == "Completed" then
    local namespaces = strings(status.requestNamespaces)
    if #namespaces == 0 then return "Healthy", "Completed" end
    return "Healthy", "Shared with " .. table.concat(namespaces, ", ")
  end
  if phase == "Failed" then
    return "Degraded", "OperandBindInfo failed to share its Secrets and ConfigMaps"
  end
  if progressing[phase] then
    return "Progressing", phase
  end
  return "Unknown", "Unrecognised OperandBindInfo phase " .. phase
end
