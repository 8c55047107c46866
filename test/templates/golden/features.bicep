// Most of what aksemu's Bicep compiler handles, in one file.
targetScope = 'resourceGroup'

@description('The cluster name')
@minLength(3)
@maxLength(63)
param clusterName string = 'aks${uniqueString(resourceGroup().id)}'

@allowed([
  'none'
  'kubenet'
  'azure'
])
param networkPlugin string = 'none'

@minValue(1)
@maxValue(100)
param nodeCount int = 3

@secure()
param adminPassword string = ''

param subnets array = [
  {
    name: 'nodes'
    prefix: '10.224.0.0/16'
  }
  {
    name: 'pods'
    prefix: '10.225.0.0/16'
  }
]

param deployNsg bool = false

var location = resourceGroup().location
var isByoCni = networkPlugin == 'none'
var tags = {
  env: 'test'
  'cost-center': '42'
}
var names = [for s in subnets: toUpper(s.name)]

resource vnet 'Microsoft.Network/virtualNetworks@2022-01-01' = {
  name: '${clusterName}-vnet'
  location: location
  tags: tags
  properties: {
    addressSpace: {
      addressPrefixes: [
        '10.224.0.0/12'
      ]
    }
    subnets: [for (s, i) in subnets: {
      name: s.name
      properties: {
        addressPrefix: s.prefix
      }
    }]
  }
}

resource nodes 'Microsoft.Network/virtualNetworks/subnets@2022-01-01' existing = {
  parent: vnet
  name: 'nodes'
}

resource nsgs 'Microsoft.Network/networkSecurityGroups@2022-01-01' = [for i in range(0, 2): if (deployNsg) {
  name: 'nsg-${i}'
  location: location
}]

resource existingRt 'Microsoft.Network/routeTables@2022-01-01' existing = {
  name: 'shared-rt'
  scope: resourceGroup('network-rg')
}

resource aks 'Microsoft.ContainerService/managedClusters@2022-06-01' = {
  name: clusterName
  location: location
  identity: {
    type: 'SystemAssigned'
  }
  properties: {
    dnsPrefix: isByoCni ? 'byo-${clusterName}' : clusterName
    agentPoolProfiles: [
      {
        name: 'nodepool1'
        count: nodeCount * 1
        mode: 'System'
        vmSize: 'Standard_B2ms'
        vnetSubnetID: nodes.id
      }
    ]
    networkProfile: {
      networkPlugin: networkPlugin
      podCidr: isByoCni ? '10.10.0.0/16' : null
    }
  }
  dependsOn: [
    nsgs
  ]
}

output fqdn string = aks.properties.fqdn
output principalId string = aks.identity.principalId
output vnetId string = vnet.id
output routeTableId string = existingRt.id
output upperNames array = names
output firstNsg string = nsgs[0].name
output counts array = [for i in range(0, 3): i * 2]
