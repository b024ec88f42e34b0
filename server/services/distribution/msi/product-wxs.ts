import { msiComponentGuid, msiUpgradeCode } from "./msi-guids.ts";
import { msiProductVersion } from "./product-version.ts";
import {
  AGENT_CONFIG_FILE,
  AGENT_EXE,
  FAILURE_RESET_S,
  FAILURE_RESTART_DELAYS_S,
  SERVICE_DISPLAY_NAME,
  SERVICE_EXE,
  SERVICE_NAME,
  SERVICE_XML,
  serviceDescription,
} from "./winsw-config.ts";
import { wxs } from "./wxs-text.ts";

export type ProductWxsInput = {
  projectId: string;
  projectName: string;
  agentVersion: string;
  /** The files the MSI installs, by name in the folder wixl runs in (it takes no absolute path). */
  sources: {
    agentExe: string;
    serviceExe: string;
    serviceExeConfig: string;
    serviceXml: string;
    agentConfig: string;
  };
};

// LocalSystem and Administrators by SID, so the rule holds on every Windows language.
const OWNERS_ONLY = "/inheritance:r /grant:r *S-1-5-18:{R}F *S-1-5-32-544:{R}F";
const onInstall = 'NOT REMOVE~="ALL"';

/** `sc failure`'s arguments for FAILURE_RESTART_DELAYS_S (the WinSW configuration's <onfailure>). */
function scFailureArguments(): string {
  const actions = FAILURE_RESTART_DELAYS_S.map((s) => `restart/${s * 1000}`).join("/");
  return `failure ${SERVICE_NAME} reset= ${FAILURE_RESET_S} actions= ${actions}`;
}

/**
 * The WiX source of a project's MSI, in the subset wixl (msitools 0.101) compiles: a per-machine x64
 * package that installs the agent, WinSW as the caudal-agent service (auto start, stopped and
 * removed on uninstall) and the agent's configuration into Program Files\Caudal Agent.
 *
 * What wixl lacks is done with the standard tools of Windows, run by deferred custom actions as
 * LocalSystem: `sc failure` for restart on failure (no ServiceConfigFailureActions), and `icacls`
 * to keep the configuration (its enrollment code) and the data folder (the agent token) to
 * LocalSystem and Administrators (no Permission). wixl has no AllowSameVersionUpgrades either: an
 * Upgrade row of its own lets a rebuild of the same agent version replace the installed one.
 */
export function productWxs(input: ProductWxsInput): string {
  const { projectId } = input;
  const { version, nextPatch } = msiProductVersion(input.agentVersion);
  const upgradeCode = msiUpgradeCode(projectId);
  // By code point: slicing UTF-16 units could split a pair.
  const shortName = [...input.projectName].slice(0, 40).join("");
  const name = `${SERVICE_DISPLAY_NAME} (${shortName})`;
  const src = input.sources;
  const guid = (component: string) => msiComponentGuid(projectId, component);
  const description = serviceDescription(projectId);
  const protectData = `"[INSTALLDIR]data" ${OWNERS_ONLY.replaceAll("{R}", "(OI)(CI)")}`;
  const protectConfig = `"[#AgentConfig]" ${OWNERS_ONLY.replaceAll("{R}", "")}`;
  // Every value below goes through wxsText (the tag): the project's name is user text.
  return wxs`<?xml version="1.0" encoding="utf-8"?>
<Wix xmlns="http://schemas.microsoft.com/wix/2006/wi">
  <Product Id="*" Name="${name}" Language="1033" Version="${version}" Manufacturer="Caudal" UpgradeCode="${upgradeCode}">
    <Package InstallerVersion="500" Compressed="yes" InstallScope="perMachine" Description="${description}"/>
    <MajorUpgrade DowngradeErrorMessage="A newer Caudal Agent is already installed."/>
    <Upgrade Id="${upgradeCode}">
      <UpgradeVersion Minimum="${version}" IncludeMinimum="yes" Maximum="${nextPatch}" IncludeMaximum="no" Property="CAUDAL_SAME_VERSION_DETECTED"/>
    </Upgrade>
    <MediaTemplate EmbedCab="yes"/>
    <Property Id="ARPCOMMENTS" Value="${description}"/>
    <Directory Id="TARGETDIR" Name="SourceDir">
      <Directory Id="ProgramFiles64Folder">
        <Directory Id="INSTALLDIR" Name="Caudal Agent">
          <Component Id="AgentExe" Guid="${guid("agent-exe")}" Win64="yes">
            <File Id="AgentExe" Name="${AGENT_EXE}" Source="${src.agentExe}" KeyPath="yes"/>
          </Component>
          <Component Id="Service" Guid="${guid("service")}" Win64="yes">
            <File Id="ServiceExe" Name="${SERVICE_EXE}" Source="${src.serviceExe}" KeyPath="yes"/>
            <File Id="ServiceExeConfig" Name="${SERVICE_EXE}.config" Source="${src.serviceExeConfig}"/>
            <File Id="ServiceXml" Name="${SERVICE_XML}" Source="${src.serviceXml}"/>
            <ServiceInstall Id="ServiceInstall" Name="${SERVICE_NAME}" DisplayName="${SERVICE_DISPLAY_NAME}" Description="${description}" Type="ownProcess" Start="auto" ErrorControl="normal" Account="LocalSystem"/>
            <ServiceControl Id="ServiceControl" Name="${SERVICE_NAME}" Start="install" Stop="both" Remove="uninstall" Wait="yes"/>
          </Component>
          <Component Id="AgentConfig" Guid="${guid("agent-config")}" Win64="yes">
            <File Id="AgentConfig" Name="${AGENT_CONFIG_FILE}" Source="${src.agentConfig}" KeyPath="yes"/>
          </Component>
          <Directory Id="DATADIR" Name="data">
            <Component Id="DataDir" Guid="${guid("data-dir")}" Win64="yes">
              <CreateFolder/>
            </Component>
          </Directory>
        </Directory>
      </Directory>
    </Directory>
    <Feature Id="Agent" Title="${SERVICE_DISPLAY_NAME}" Level="1">
      <ComponentRef Id="AgentExe"/>
      <ComponentRef Id="Service"/>
      <ComponentRef Id="AgentConfig"/>
      <ComponentRef Id="DataDir"/>
    </Feature>
    <CustomAction Id="SetCaudalIcacls" Property="CAUDAL_ICACLS" Value="[SystemFolder]icacls.exe" Impersonate="yes"/>
    <CustomAction Id="SetCaudalSc" Property="CAUDAL_SC" Value="[SystemFolder]sc.exe" Impersonate="yes"/>
    <CustomAction Id="CaudalProtectData" Property="CAUDAL_ICACLS" ExeCommand="${protectData}" Execute="deferred" Impersonate="no" Return="check"/>
    <CustomAction Id="CaudalProtectConfig" Property="CAUDAL_ICACLS" ExeCommand="${protectConfig}" Execute="deferred" Impersonate="no" Return="check"/>
    <CustomAction Id="CaudalServiceRecovery" Property="CAUDAL_SC" ExeCommand="${scFailureArguments()}" Execute="deferred" Impersonate="no" Return="check"/>
    <InstallExecuteSequence>
      <RemoveExistingProducts Sequence="1401"/>
      <Custom Action="SetCaudalIcacls" Sequence="1001">${onInstall}</Custom>
      <Custom Action="SetCaudalSc" Sequence="1002">${onInstall}</Custom>
      <Custom Action="CaudalProtectData" Sequence="4001">${onInstall}</Custom>
      <Custom Action="CaudalProtectConfig" Sequence="4002">${onInstall}</Custom>
      <Custom Action="CaudalServiceRecovery" Sequence="5850">${onInstall}</Custom>
    </InstallExecuteSequence>
  </Product>
</Wix>
`;
}
